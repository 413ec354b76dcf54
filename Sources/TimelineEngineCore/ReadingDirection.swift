/// Which way reading goes along a newest-first timeline, and so which post a reader whose post
/// is gone goes to next: the one rule of deleted posts, for the restoration strategies, the
/// reach and the simulator's truth alike.
public enum ReadingDirection: String, Sendable, CaseIterable {
    /// Towards older posts: reading down a newest-first feed from the top. The next post is
    /// the one below.
    case older = "Older"
    /// Towards newer posts: catching up from where one stopped, as read markers assume. The next
    /// post is the one above.
    case newer = "Newer"

    /// The direction assumed while none is known: a newest-first feed is read from the top down.
    public static let usual = ReadingDirection.older

    /// Which side of a post the reader goes to next in this direction.
    public var ahead: Side { self == .older ? .below : .above }

    /// A side of a post in display order.
    public enum Side: String, Sendable {
        case above
        case below
    }

    /// The order in which a gone post's recorded neighbours stand in for it: every neighbour
    /// ahead of it in this direction, nearest first, then the ones behind it, nearest first;
    /// at most `depth` from each side. A reader going down whose post and the one below it are
    /// both gone is on the next surviving post below, however near the one above is.
    public func standInOrder(above: [String], below: [String], depth: Int) -> [(id: String, distance: Int, side: Side)] {
        let (first, second) = ahead == .below ? ((below, Side.below), (above, Side.above)) : ((above, Side.above), (below, Side.below))
        var order: [(id: String, distance: Int, side: Side)] = []
        for (list, side) in [first, second] {
            for (offset, id) in list.prefix(max(0, depth)).enumerated() { order.append((id, offset + 1, side)) }
        }
        return order
    }

    /// The post a reader on `posts[position]` goes to when it is gone: the next one for which
    /// `survives` holds ahead in this direction, else the nearest one behind; nil when none
    /// survives.
    public func survivor<C: RandomAccessCollection>(in posts: C, around position: C.Index, survives: (C.Element) -> Bool) -> C.Element? {
        let below = posts[posts.index(after: position)...].first(where: survives)
        let above = posts[..<position].last(where: survives)
        return ahead == .below ? below ?? above : above ?? below
    }

    /// The largest move of the reader's place that counts as reading, in posts. Reading moves a
    /// post or a few at a time; a move further at once (a flick past posts, a jump back to the
    /// top or down to where one stopped) is navigation, and counts as one move, as a step would.
    /// Four: on the independent one-device sessions (`Tests/Fixtures/independent-deletions`) 4
    /// and 5 land every deleted post, 3 misses some readers who flick down; on the simulator's
    /// multi-device sessions 3 and 4 keep every figure, 5 and more count its catching-up
    /// readers' quick flicks down to re-read as reading down (docs/SYNC.md).
    public static let largestCountedMove = 4

    /// What a move of `posts` posts counts towards the reading direction: the posts it passed,
    /// at least 1, when it is reading (at most `largestCountedMove`); 1 for a jump. A reader who
    /// flicks down four posts and nudges back up one at a time makes more moves up than down,
    /// and travels down: counting posts, not moves, tells the way they read, and a jump to
    /// where they stopped does not outweigh the reading after it.
    public static func countedMove(posts: Int) -> Int {
        posts <= 1 || posts > largestCountedMove ? 1 : posts
    }

    /// What the move from `earlier` to `later`, two saves that went towards `way`, counts:
    /// `countedMove(posts:)` of the posts between them by their indexes, where both are known
    /// (when the timeline grew between them, the smaller of the distances with and without the
    /// growth above that still goes `way`); 1 otherwise.
    public static func countedMove(from earlier: PositionSnapshot, to later: PositionSnapshot, towards way: ReadingDirection) -> Int {
        guard let from = earlier.index, let to = later.index else { return 1 }
        let grown = (later.timelineCount ?? 0) &- (earlier.timelineCount ?? 0)
        // Older posts have higher indexes in a newest-first feed (wrapping arithmetic and a
        // clamped magnitude: an index is the app's number, any Int).
        let distances = [to &- from, to &- from &- grown].filter { way == .older ? $0 > 0 : $0 < 0 }.map { Int(clamping: $0.magnitude) }
        return countedMove(posts: distances.min() ?? 1)
    }

    /// The way a reader's saves moved, from a position history (newest first, one snapshot per
    /// post): `older` when its steps to older posts by creation time count more
    /// (`countedMove(from:to:towards:)`) than its steps to newer ones, `newer` when those count
    /// more, nil while they are even or the history has no times.
    public static func learned(fromHistory history: [PositionSnapshot]) -> ReadingDirection? {
        var older = 0
        var newer = 0
        for (later, earlier) in zip(history, history.dropFirst()) {
            guard let a = later.postCreatedAt, let b = earlier.postCreatedAt, a != b else { continue }
            if a < b {
                older += countedMove(from: earlier, to: later, towards: .older)
            } else {
                newer += countedMove(from: earlier, to: later, towards: .newer)
            }
        }
        return older > newer ? .older : newer > older ? .newer : nil
    }
}
