import Foundation
import TimelineEngineCore
import TimelineEngineReachModel

/// A feed held in memory that answers `PageRequest`s as Mastodon or Bluesky does: the simulated
/// server behind `engine compare` and the reach strategies' scenarios.
///
/// - Mastodon (`pagesByPost`): pages by post id, a deleted post's id still marks its place (as
///   `max_id` compares ids), and a lookup of a deleted post is not found.
/// - Bluesky: pages only from the top, by cursor (`FeedCursors`: the reference AppView's time-keyed
///   cursors by default); a lookup (`getPosts`) of a deleted post is not found.
///
/// Answer sizes follow the shape of the recorded answers in `Tests/Fixtures/api`: an envelope per
/// post plus its text.
public struct PagedTimeline: Sendable {
    /// Every post the feed has had, in display order (newest first), deleted ones included.
    public private(set) var entries: [Post]
    /// The ids of the posts deleted since.
    public private(set) var deleted: Set<String>
    public let pagesByPost: Bool
    public let maxPageSize: Int
    /// A Bluesky-shaped feed's cursors (Mastodon's are post ids).
    public var cursors: FeedCursors = .timeKeyed
    /// False for a server whose lookup of a post it does not have answers neither the post nor
    /// that it is gone (an HTML 404, as Takahē's): `PageAnswer.inconclusive`.
    public var lookupsConclusive = true
    private var positions: [String: Int]

    /// Bytes of JSON around each post's text: Mastodon's Status, Bluesky's feedViewPost.
    public var envelopeBytes: Int { pagesByPost ? 690 : 480 }

    public init(posts: [Post], deleted: Set<String> = [], pagesByPost: Bool, maxPageSize: Int? = nil) {
        entries = posts
        self.deleted = deleted
        self.pagesByPost = pagesByPost
        self.maxPageSize = maxPageSize ?? (pagesByPost ? 40 : 100)
        positions = [:]
        for (index, post) in posts.enumerated() where positions[post.id] == nil { positions[post.id] = index }
    }

    /// A Mastodon-shaped feed (pages of at most 40, by post id).
    public static func mastodon(_ posts: [Post], deleted: Set<String> = []) -> PagedTimeline {
        PagedTimeline(posts: posts, deleted: deleted, pagesByPost: true)
    }

    /// A Bluesky-shaped feed (pages of at most 100, from the top only).
    public static func bluesky(_ posts: [Post], deleted: Set<String> = []) -> PagedTimeline {
        PagedTimeline(posts: posts, deleted: deleted, pagesByPost: false)
    }

    /// The posts that exist now, in display order.
    public var posts: [Post] { entries.filter { !deleted.contains($0.id) } }

    /// New posts on top.
    public mutating func insert(_ posts: [Post], at index: Int = 0) {
        insertEntries(posts, at: min(index, entries.count))
    }

    /// Posts inserted just above the post `id` (nil, or an id the feed never had: at the end).
    public mutating func insert(_ posts: [Post], before id: String?) {
        insertEntries(posts, at: id.flatMap { positions[$0] } ?? entries.count)
    }

    private mutating func insertEntries(_ posts: [Post], at index: Int) {
        entries.insert(contentsOf: posts, at: index)
        positions = [:]
        for (index, post) in entries.enumerated() where positions[post.id] == nil { positions[post.id] = index }
    }

    /// Deletes posts: pages skip them, lookups do not find them.
    public mutating func delete(_ ids: some Sequence<String>) {
        deleted.formUnion(ids)
    }

    /// Replaces posts by id (edits).
    public mutating func update(_ posts: [Post]) {
        for post in posts {
            if let index = positions[post.id] { entries[index] = post }
        }
    }

    /// The head page: the newest `limit` posts, with the cursor after it.
    public func head(limit: Int) -> PageAnswer {
        page(from: 0, limit: limit)
    }

    public func answer(_ request: PageRequest) -> PageAnswer {
        switch request {
        case .post(let id):
            guard let index = positions[id], !deleted.contains(id) else {
                return lookupsConclusive ? PageAnswer(posts: [], found: false, bytes: 60) : PageAnswer(posts: [], inconclusive: true, bytes: 2_000)
            }
            return PageAnswer(posts: [entries[index]], bytes: size(of: [entries[index]]))
        case .top(let cursor, let limit), .keyed(let cursor, let limit):
            if pagesByPost {
                guard case .top = request else { return Self.refusal }
                return below(cursor, limit: limit)
            }
            return page(after: cursor, limit: limit)
        case .below(let post, let limit):
            guard pagesByPost else { return PageAnswer(posts: [], cursor: nil, bytes: 60) }
            return below(post, limit: limit)
        case .above(let post, let limit):
            guard pagesByPost, let index = positions[post] else { return PageAnswer(posts: [], cursor: nil, bytes: 60) }
            var found: [Post] = []
            var position = index - 1
            while position >= 0, found.count < clamp(limit) {
                if !deleted.contains(entries[position].id) { found.append(entries[position]) }
                position -= 1
            }
            let posts = Array(found.reversed())
            return PageAnswer(posts: posts, cursor: posts.last?.id, bytes: size(of: posts))
        }
    }

    private func clamp(_ limit: Int) -> Int { max(1, min(limit, maxPageSize)) }

    /// A 400 answered to a cursor the server does not take (`InvalidRequest: Malformed cursor`).
    private static let refusal = PageAnswer(posts: [], cursor: nil, bytes: 60)

    /// False for a cursor a Bluesky-shaped feed refuses (answered with an empty page here, a 400
    /// over HTTP): not of its shape, or, where only its own are honoured, not one it gave.
    public func accepts(cursor: String) -> Bool {
        pagesByPost || start(of: cursor) != nil
    }

    /// Where a Bluesky page from a cursor begins.
    private enum CursorStart {
        /// At an entry: after the post a cursor the server gave was made from, or at the
        /// position an opaque cursor names.
        case entry(Int)
        /// The keyset: the posts whose (time, CID) is below the cursor's, in the feed's order.
        case below(Key)
    }

    /// Where a page from `cursor` begins, or nil for a cursor the server refuses: a cursor it gave
    /// continues after the post it was made from (or at the position it names); any other cursor
    /// of the time-keyed shape is honoured as a keyset where `cursors` is `.timeKeyed`.
    private func start(of cursor: String) -> CursorStart? {
        if cursors == .opaque {
            guard cursor.hasPrefix("i:"), let start = Int(cursor.dropFirst(2)), start >= 0 else { return nil }
            return .entry(start)
        }
        guard let key = Self.key(of: cursor) else { return nil }
        if let index = entries.firstIndex(where: { Self.key(of: $0) == key }) { return .entry(index + 1) }
        return cursors == .timeKeyed ? .below(key) : nil
    }

    /// A Bluesky page from `cursor` (`start(of:)`), or the refusal.
    private func page(after cursor: String, limit: Int) -> PageAnswer {
        switch start(of: cursor) {
        case nil:
            return Self.refusal
        case .entry(let start):
            return page(from: start, limit: limit)
        case .below(let key):
            guard let start = entries.firstIndex(where: { Self.key(of: $0) < key }) else { return PageAnswer(posts: [], cursor: nil, bytes: 2) }
            return page(from: start, limit: limit) { Self.key(of: $0) < key }
        }
    }

    /// A post's key in the reference AppView's timeline: its time in milliseconds and its CID.
    struct Key: Comparable {
        var milliseconds: Int64
        var cid: String

        static func < (a: Key, b: Key) -> Bool { (a.milliseconds, a.cid) < (b.milliseconds, b.cid) }
    }

    static func key(of post: Post) -> Key {
        Key(milliseconds: Int64((post.createdAt.timeIntervalSince1970 * 1000).rounded(.down)), cid: cid(of: post.id))
    }

    static func key(of cursor: String) -> Key? {
        let parts = cursor.components(separatedBy: "__")
        guard parts.count == 2, let milliseconds = Int64(parts[0]), !parts[1].isEmpty else { return nil }
        return Key(milliseconds: milliseconds, cid: parts[1])
    }

    /// A CID-like name for a post, the same for the same id: `bafyrei` and 16 hexadecimal digits
    /// of its FNV-1a hash.
    static func cid(of id: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "bafyrei" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    private func below(_ id: String, limit: Int) -> PageAnswer {
        guard let index = positions[id] else { return PageAnswer(posts: [], cursor: nil, bytes: 60) }
        return page(from: index + 1, limit: limit)
    }

    /// Up to `limit` existing posts from entry `start` on (those `included`), and the cursor after
    /// them.
    private func page(from start: Int, limit: Int, where included: (Post) -> Bool = { _ in true }) -> PageAnswer {
        var posts: [Post] = []
        var position = start
        while position < entries.count, posts.count < clamp(limit) {
            if !deleted.contains(entries[position].id), included(entries[position]) { posts.append(entries[position]) }
            position += 1
        }
        let more = entries[min(position, entries.count)...].contains { !deleted.contains($0.id) && included($0) }
        let cursor: String?
        if !more {
            cursor = nil
        } else if pagesByPost {
            cursor = posts.last?.id
        } else if cursors == .opaque {
            cursor = "i:\(position)"
        } else {
            cursor = posts.last.map { post in
                let key = Self.key(of: post)
                return "\(key.milliseconds)__\(key.cid)"
            }
        }
        return PageAnswer(posts: posts, cursor: cursor, bytes: size(of: posts))
    }

    private func size(of posts: [Post]) -> Int {
        2 + posts.reduce(0) { $0 + envelopeBytes + ($1.text?.utf8.count ?? 0) + ($1.author?.utf8.count ?? 0) }
    }
}
