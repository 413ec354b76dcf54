import Foundation
import Testing
import TimelineEngineCore

/// "N new above you", counted as a reader would (`UnreadCount`, `ReadPosts`).
@Suite("Unread count", .timeLimit(.minutes(10)))
struct UnreadCountTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    static func post(_ id: String, _ author: String = "ann", _ text: String? = nil, minutesAgo: Double = 0, boostOf: String? = nil) -> Post {
        Post(
            id: id, createdAt: base.addingTimeInterval(-60 * minutesAgo), author: author, text: text ?? "\(id)a \(id)b \(id)c \(id)d",
            height: 100, boostOf: boostOf)
    }

    static func index(_ posts: [Post]) -> TimelineIndex {
        TimelineIndex(Timeline(posts: posts, viewportHeight: 300))
    }

    @Test("every post above the reader's that they have not read counts, by its place, not its time")
    func byPlace() {
        // "late" arrived above the reader with an older time than the post they are on.
        let posts = [Self.post("new1"), Self.post("late", minutesAgo: 90), Self.post("read1", minutesAgo: 10), Self.post("here", minutesAgo: 20)]
        var read = ReadPosts()
        read.insert(posts[2])
        read.insert(posts[3])
        #expect(UnreadCount.above(3, in: Self.index(posts), read: read) == 2)
        // Nothing above the top.
        #expect(UnreadCount.above(0, in: Self.index(posts), read: read) == 0)
    }

    @Test("a boost of a post read is not new; a boost and the post it boosts, both unread, count once")
    func boosts() {
        let original = Self.post("o", "bob", "the quick brown fox jumps over", minutesAgo: 30)
        var read = ReadPosts()
        read.insert(original)
        let posts = [Self.post("b1", "carl", original.text, boostOf: "o"), Self.post("x", minutesAgo: 5), Self.post("here", minutesAgo: 40)]
        #expect(UnreadCount.above(2, in: Self.index(posts), read: read) == 1)
        let unread = [
            Self.post("b2", "carl", "a story nobody has read yet", boostOf: "y"), Self.post("y", "dan", "a story nobody has read yet", minutesAgo: 3),
            Self.post("here", minutesAgo: 40),
        ]
        #expect(UnreadCount.above(2, in: Self.index(unread), read: ReadPosts()) == 1)
        // Reading a boost reads the post it boosts.
        var viaBoost = ReadPosts()
        viaBoost.insert(unread[0])
        #expect(viaBoost.contains(unread[1]))
    }

    @Test("a re-draft of a post read is not new: the same author, one word changed, added or removed; another author's is")
    func redrafts() {
        let original = Self.post("o", "bob", "meeting moved to thursday at noon in room four", minutesAgo: 30)
        var read = ReadPosts()
        read.insert(original)
        for text in [
            "meeting moved to thursday at noon in room four!", "meeting moved to thursday at noon in room five",
            "meeting now moved to thursday at noon in room four",
        ] {
            #expect(read.contains(Self.post("r", "bob", text)), "\(text)")
            #expect(!read.contains(Self.post("r", "eve", text)), "\(text)")
        }
        #expect(!read.contains(Self.post("r", "bob", "meeting moved to friday at ten in room four")))
        // Too short to tell: three words at least.
        var short = ReadPosts()
        short.insert(Self.post("s", "bob", "good morning"))
        #expect(!short.contains(Self.post("t", "bob", "good morning")))
        // Links are left out: a shortener gives the same link a new address each time.
        var linked = ReadPosts()
        linked.insert(Self.post("l1", "cnn", "A boa constrictor found in carry-on baggage https://t.co/ECHYf6z9"))
        #expect(linked.contains(Self.post("l2", "cnn", "A boa constrictor found in carry-on baggage https://t.co/SiblnxI4")))
    }

    @Test("the same content twice above the reader, both unread, counts once")
    func duplicates() {
        let posts = [
            Self.post("a", "cnn", "the ruling party signed a deal to extract oil"),
            Self.post("b", "cnn", "the ruling party signed a deal to extract oil https://t.co/x"), Self.post("here"),
        ]
        #expect(UnreadCount.above(2, in: Self.index(posts), read: ReadPosts()) == 1)
    }

    @Test("the read posts are bounded: past an eighth more than the limit, the earliest are forgotten")
    func bounded() {
        var read = ReadPosts(limit: 8)
        for n in 0..<9 { read.insert(Self.post("p\(n)")) }
        #expect(read.count == 9)
        read.insert(Self.post("p9"))
        #expect(read.count == 8)
        #expect(read.ids == (2..<10).map { "p\($0)" })
        #expect(!read.contains(Self.post("p0")))
    }
}

/// What one device read, as its position carries it to the others (`ReadDigest`).
@Suite("Reads from other devices", .timeLimit(.minutes(10)))
struct ReadDigestTests {
    @Test("a post id's digest is 32-bit FNV-1a of its UTF-8 bytes, the same on every platform")
    func digest() {
        #expect(ReadPosts.digest(of: "a") == 0xE40C_292C)
        #expect(ReadPosts.digest(of: "42") == 0x87E3_8583)
        #expect(ReadPosts.digest(of: "") == 0x811C_9DC5)
    }

    @Test("the latest reads go out earliest first, with their content; a boost and a short text carry none")
    func recent() {
        var read = ReadPosts()
        let posts = [
            UnreadCountTests.post("p1"), UnreadCountTests.post("b", "carl", "p1a p1b p1c p1d", boostOf: "p9"),
            UnreadCountTests.post("short", "ann", "too short"), UnreadCountTests.post("p2"),
        ]
        for post in posts { read.insert(post) }
        let digests = read.recentDigests(limit: 3)
        // The boost marked p9 read before itself: p1, p9, b, short, p2; the last three go.
        #expect(digests.map(\.post) == ["b", "short", "p2"].map(ReadPosts.digest(of:)))
        #expect(
            digests.map(\.content) == [
                ReadDigest.noContent, ReadDigest.noContent, ReadDigest.content(author: "ann", fingerprint: ContentFingerprint(posts[3].text)!),
            ])
        #expect(read.recentDigests(limit: 0).isEmpty)
    }

    @Test("another device's reads count as read here: the same post, a boost of it, the same author's same words under a new id")
    func elsewhere() {
        var there = ReadPosts()
        let original = UnreadCountTests.post("o", "bob", "meeting moved to thursday at noon in room four")
        there.insert(original)
        there.insert(UnreadCountTests.post("seen"))
        let here = ReadPosts().including(digests: there.recentDigests(limit: 100))
        #expect(here.contains(original))
        #expect(here.contains(UnreadCountTests.post("seen")))
        #expect(here.contains(UnreadCountTests.post("b", "carl", original.text, boostOf: "o")))
        #expect(here.contains(UnreadCountTests.post("again", "bob", original.text)))
        // Another author's same words, or a word changed, are not known from a digest.
        #expect(!here.contains(UnreadCountTests.post("again", "eve", original.text)))
        #expect(!here.contains(UnreadCountTests.post("again", "bob", "meeting moved to thursday at noon in room five")))
        #expect(!here.contains(UnreadCountTests.post("other")))
        let posts = [UnreadCountTests.post("new"), UnreadCountTests.post("again", "bob", original.text), original, UnreadCountTests.post("here")]
        #expect(UnreadCount.above(3, in: UnreadCountTests.index(posts), read: here) == 1)
    }

    @Test("digests as bytes: 8 each, big-endian, and back; a cut digest is refused")
    func bytes() {
        let digests = [ReadDigest(post: 0x0102_0304, content: 0x0506_0708), ReadDigest(post: 0xFFFF_FFFF)]
        let bytes = ReadDigest.bytes(of: digests)
        #expect(bytes == [1, 2, 3, 4, 5, 6, 7, 8, 255, 255, 255, 255, 0, 0, 0, 0])
        #expect(ReadDigest.digests(from: bytes) == digests)
        #expect(ReadDigest.digests(from: Array(bytes.prefix(12))) == nil)
    }

    @Test("an index after a change counts as a fresh one, its unchanged posts' fingerprints taken from the index before")
    func fingerprintsReused() {
        let before = [
            UnreadCountTests.post("a"), UnreadCountTests.post("b", "bob", "the same words again today"), UnreadCountTests.post("c"),
            UnreadCountTests.post("d", "bob", "what bob wrote this morning"),
        ]
        let old = UnreadCountTests.index(before)
        var read = ReadPosts()
        read.insert(before[3])
        _ = UnreadCount.counts(in: old, read: read)
        // A re-draft of d arrives above, b is edited into a re-draft of d too, c is deleted.
        let after = [
            UnreadCountTests.post("n", "bob", "what bob wrote this morning!"), before[0],
            UnreadCountTests.post("b", "bob", "what bob wrote this morning too"), before[3],
        ]
        let reused = UnreadCountTests.index(after)
        UnreadCount.reuseFingerprints(in: reused, from: old)
        #expect(UnreadCount.counts(in: reused, read: read) == UnreadCount.counts(in: UnreadCountTests.index(after), read: read))
        #expect(UnreadCount.counts(in: reused, read: read) == [0, 0, 1, 1, 1])
        // The tracker's reads take the index's fingerprints: b, read there, makes n read.
        var fromIndex = ReadPosts()
        fromIndex.insert(postAt: 2, of: reused)
        #expect(fromIndex.contains(after[0]))
    }
}
