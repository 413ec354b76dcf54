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

    /// The way a reader's saves moved, from a position history (newest first, one snapshot per
    /// post): `older` when more of its steps went to older posts by creation time, `newer` when
    /// more went to newer ones, nil while they are even or the history has no times.
    public static func learned(fromHistory history: [PositionSnapshot]) -> ReadingDirection? {
        var older = 0
        var newer = 0
        for (later, earlier) in zip(history, history.dropFirst()) {
            guard let a = later.postCreatedAt, let b = earlier.postCreatedAt, a != b else { continue }
            if a < b { older += 1 } else { newer += 1 }
        }
        return older > newer ? .older : newer > older ? .newer : nil
    }
}
