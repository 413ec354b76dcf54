import Foundation

/// What the reader has read: the ids of the posts that passed through the viewport, and each
/// one's content (its author and the words of its text), so that a post the reader has seen in
/// another form is known as read:
///
/// - a **boost** of a read post (its `boostOf` is a read id);
/// - a **re-draft**: the same author's post deleted and posted again under a new id, with the
///   same or lightly edited text (`ContentFingerprint.isRedraft(of:)`).
///
/// It holds about `limit` posts: past an eighth more, the earliest read are forgotten, down to
/// `limit`.
///
/// What other devices read comes as digests of post ids (`digest(of:)`), which sync carries with
/// each device's position (`insert(digests:)`): a post whose id or boosted id has a digest read
/// elsewhere is read too.
public struct ReadPosts: Sendable, Equatable {
    /// The ids read.
    private var read: Set<String> = []
    /// The same ids, earliest first.
    private var inOrder: [String] = []
    /// Per author, the fingerprints of their posts read, with the ids they were read under.
    private var contents: [String: [(id: String, fingerprint: ContentFingerprint)]] = [:]
    /// The same posts' digests (`ReadDigest`), earliest first: what a write carries.
    private var digestsInOrder: [ReadDigest] = []
    /// The digests of the post ids read on other devices, and of their contents.
    private var elsewhere: Set<UInt32> = []
    private var elsewhereContents: Set<UInt32> = []
    /// The most posts kept.
    public var limit: Int

    /// Whether the digests a write carries are kept (`recentDigests`); not for a set that
    /// only answers `contains`.
    private var keepsDigests = true

    public init(limit: Int = 5_000) {
        self.limit = max(1, limit)
    }

    /// A set that only answers `contains`: no digests made.
    init(counting limit: Int) {
        self.limit = max(1, limit)
        keepsDigests = false
    }

    public static func == (lhs: ReadPosts, rhs: ReadPosts) -> Bool {
        lhs.read == rhs.read && lhs.elsewhere == rhs.elsewhere
            && lhs.elsewhereContents == rhs.elsewhereContents
    }

    /// A post id's digest, as another device's reads carry it: 32-bit FNV-1a of its UTF-8
    /// bytes. Two ids share one about once in four billion pairs, so among a timeline's posts
    /// and a few thousand reads a post is taken for read by mistake about once in a million
    /// timelines.
    public static func digest(of id: String) -> UInt32 {
        var hash = FNV32()
        hash.add(id.utf8)
        return hash.value
    }

    /// The digests of the `limit` posts read last here, earliest first: what this device's
    /// position carries to the others (`PositionRecord.reads`).
    public func recentDigests(limit: Int) -> [ReadDigest] {
        guard limit > 0 else { return [] }
        return Array(digestsInOrder.suffix(limit))
    }

    /// Marks read what another device read (`ReadDigest`): the posts of those ids, and posts
    /// of the same author and words.
    public mutating func insert<Digests: Sequence<ReadDigest>>(digests: Digests) {
        for digest in digests {
            elsewhere.insert(digest.post)
            if digest.content != ReadDigest.noContent { elsewhereContents.insert(digest.content) }
        }
    }

    /// This device's reads, with the reads of other devices `digests` added.
    public func including<Digests: Sequence<ReadDigest>>(digests: Digests) -> ReadPosts {
        var copy = self
        copy.insert(digests: digests)
        return copy
    }

    /// How many posts are kept.
    public var count: Int { read.count }

    /// The ids read, earliest first.
    public var ids: [String] { inOrder }

    /// Marks `post` read, with its content; a boost marks the post it boosts read too (the
    /// reader saw its text). True when `post` was not read before.
    @discardableResult
    public mutating func insert(_ post: Post) -> Bool {
        // Already read: nothing to add, and the text is not looked at again.
        guard !read.contains(post.id) else { return false }
        if let original = post.boostOf {
            insert(id: original, author: nil, fingerprint: nil)
            return insert(id: post.id, author: nil, fingerprint: nil)
        }
        return insert(id: post.id, author: post.author, fingerprint: ContentFingerprint(post.text))
    }

    /// `insert(_:)` for the post at display index `position` of `index`, with the fingerprint the
    /// index's unread counts made (`UnreadCount`) when they were made.
    @discardableResult
    public mutating func insert(postAt position: Int, of index: TimelineIndex) -> Bool {
        let post = index.posts[position]
        guard !read.contains(post.id) else { return false }
        guard post.boostOf == nil, let counted = UnreadCount.existingFingerprints(of: index) else { return insert(post) }
        return insert(id: post.id, author: post.author, fingerprint: counted[position])
    }

    /// Marks the post `id` read; `author` and `fingerprint` (its content) when known. True when
    /// it was not read before.
    @discardableResult
    public mutating func insert(id: String, author: String?, fingerprint: ContentFingerprint?) -> Bool {
        guard read.insert(id).inserted else { return false }
        inOrder.append(id)
        if let author, let fingerprint { contents[author, default: []].append((id, fingerprint)) }
        if keepsDigests {
            var digest = ReadDigest(post: Self.digest(of: id))
            if let author, let fingerprint { digest.content = ReadDigest.content(author: author, fingerprint: fingerprint) }
            digestsInOrder.append(digest)
        }
        if read.count - limit > max(1, limit / 8) { forgetEarliest(read.count - limit) }
        return true
    }

    /// Whether the reader has read `post`: itself, the post it boosts, or a post of which it is
    /// a re-draft.
    public func contains(_ post: Post) -> Bool {
        contains(post) { ContentFingerprint(post.text) }
    }

    /// `contains(_:)`, with the post's fingerprint given (made only when the ids do not answer).
    func contains(_ post: Post, fingerprint: () -> ContentFingerprint?) -> Bool {
        if read.contains(post.id) { return true }
        if let original = post.boostOf, read.contains(original) { return true }
        if !elsewhere.isEmpty {
            if elsewhere.contains(Self.digest(of: post.id)) { return true }
            if let original = post.boostOf, elsewhere.contains(Self.digest(of: original)) { return true }
        }
        if !elsewhereContents.isEmpty, post.boostOf == nil, let author = post.author, let fingerprint = fingerprint(),
            elsewhereContents.contains(ReadDigest.content(author: author, fingerprint: fingerprint))
        {
            return true
        }
        guard post.boostOf == nil, let author = post.author, let read = contents[author], let fingerprint = fingerprint() else { return false }
        return read.contains { fingerprint.isRedraft(of: $0.fingerprint) }
    }

    /// The content kept for the post `id`: its author and fingerprint, when known.
    public func content(of id: String) -> (author: String, fingerprint: ContentFingerprint)? {
        for (author, posts) in contents {
            if let found = posts.first(where: { $0.id == id }) { return (author, found.fingerprint) }
        }
        return nil
    }

    private mutating func forgetEarliest(_ count: Int) {
        let gone = Set(inOrder.prefix(count))
        inOrder.removeFirst(min(count, inOrder.count))
        digestsInOrder.removeFirst(min(count, digestsInOrder.count))
        for id in gone {
            read.remove(id)
        }
        for author in contents.keys {
            contents[author]?.removeAll { gone.contains($0.id) }
            if contents[author]?.isEmpty == true { contents[author] = nil }
        }
    }
}

/// A read post as another device's position carries it (`PositionRecord.reads`): the digest
/// of its id (`ReadPosts.digest(of:)`) and of its content, its author and the words of its text
/// (`noContent` for a boost or a text too short to fingerprint). The content lets a device know
/// a repeat of a post read elsewhere (the same author's same words under a new id) as read;
/// a re-draft with a word changed is known only where the post itself was read.
public struct ReadDigest: Sendable, Hashable {
    /// The digest of the post's id (`ReadPosts.digest(of:)`).
    public var post: UInt32
    /// The digest of its author and words (`content(author:fingerprint:)`), or `noContent`.
    public var content: UInt32

    /// The content digest of a post without one.
    public static let noContent: UInt32 = 0

    public init(post: UInt32, content: UInt32 = noContent) {
        self.post = post
        self.content = content
    }

    /// The digest of `author`'s text with `fingerprint`: 32-bit FNV-1a of the author's UTF-8
    /// bytes, a zero byte, and each word hash's 8 bytes (little-endian), never `noContent`.
    public static func content(author: String, fingerprint: ContentFingerprint) -> UInt32 {
        var hash = FNV32()
        hash.add(author.utf8)
        hash.add(byte: 0)
        for word in fingerprint.words {
            var rest = word
            for _ in 0..<8 {
                hash.add(byte: UInt8(truncatingIfNeeded: rest))
                rest >>= 8
            }
        }
        return hash.value == noContent ? 1 : hash.value
    }

    /// Digests as bytes, as the sync wire (in base64) and the store keep them: 8 each, the
    /// post's then the content's, big-endian.
    public static func bytes(of digests: [ReadDigest]) -> [UInt8] {
        var words: [UInt32] = []
        words.reserveCapacity(digests.count * 2)
        for digest in digests {
            words.append(digest.post.bigEndian)
            words.append(digest.content.bigEndian)
        }
        return words.withUnsafeBytes { Array($0) }
    }

    /// The digests of `bytes(of:)`, or nil when the bytes are not whole digests.
    public static func digests(from bytes: [UInt8]) -> [ReadDigest]? {
        guard bytes.count % 8 == 0 else { return nil }
        return bytes.withUnsafeBytes { raw in
            (0..<raw.count / 8).map { index in
                ReadDigest(
                    post: UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: index * 8, as: UInt32.self)),
                    content: UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: index * 8 + 4, as: UInt32.self)))
            }
        }
    }
}

/// 32-bit FNV-1a.
struct FNV32 {
    private(set) var value: UInt32 = 0x811c_9dc5

    mutating func add<Bytes: Sequence<UInt8>>(_ bytes: Bytes) {
        for byte in bytes { add(byte: byte) }
    }

    mutating func add(byte: UInt8) {
        value = (value ^ UInt32(byte)) &* 0x0100_0193
    }
}

/// A post's text as the set of its words (lower-cased letters and digits, hashed; links left
/// out, as a shortener gives the same link a new one each time), to tell a re-draft of a post
/// from another post: the same author's text of at least three words with at most one word
/// changed, added or removed (the sets differ by at most two words; under eight words, by one:
/// one word added or removed, so that a short templated post, "day 12 of 30", is not taken for
/// the next), as a post re-drafted with a typo fixed or a word added keeps, or a story posted
/// again.
public struct ContentFingerprint: Sendable, Hashable {
    /// The words' hashes, sorted, each once.
    public let words: [UInt64]

    /// The most words by which a re-draft's set differs from its original's (one changed: two),
    /// and the fewest words a text needs for a changed word to be allowed.
    public static let redraftDifference = 2
    public static let wordsForAChangedWord = 8

    /// Nil for a text of fewer than three words: too short to tell a re-draft from another post.
    public init?(_ text: String?) {
        guard let text else { return nil }
        let hashes = Self.asciiWords(text) ?? Self.words(text)
        guard hashes.count >= 3 else { return nil }
        words = hashes.sorted()
    }

    /// The word hashes of a text that is all ASCII, read byte by byte, or nil for any other
    /// text. The same hashes as `words(_:)` gives, which reads the text as characters and
    /// scalars, several times slower (a restore's unread count fingerprints every post above
    /// the reader).
    static func asciiWords(_ text: String) -> Set<UInt64>? {
        var text = text
        return text.withUTF8 { bytes -> Set<UInt64>? in
            var hashes = Set<UInt64>()
            var word = Self.wordSeed
            var length = 0
            var tokenStart = true
            var skipping = false
            var index = 0
            while index < bytes.count {
                var byte = bytes[index]
                guard byte < 0x80 else { return nil }
                // Unicode's White_Space in ASCII: tab, line feed, vertical tab, form feed,
                // carriage return, space.
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    if length > 0 { hashes.insert(word) }
                    (word, length, tokenStart, skipping) = (Self.wordSeed, 0, true, false)
                    index += 1
                    continue
                }
                if tokenStart {
                    tokenStart = false
                    // A token that begins with "http" (any case) is a link: left out.
                    skipping = Self.beginsWithHTTP(bytes, at: index)
                }
                index += 1
                if skipping { continue }
                if (0x41...0x5A).contains(byte) { byte |= 0x20 }
                if (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) {
                    word = (word ^ UInt64(byte)) &* Self.wordPrime
                    length += 1
                } else {
                    if length > 0 { hashes.insert(word) }
                    (word, length) = (Self.wordSeed, 0)
                }
            }
            if length > 0 { hashes.insert(word) }
            return hashes
        }
    }

    private static func beginsWithHTTP(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard index + 4 <= bytes.count else { return false }
        return bytes[index] | 0x20 == 0x68 && bytes[index + 1] | 0x20 == 0x74 && bytes[index + 2] | 0x20 == 0x74
            && bytes[index + 3] | 0x20 == 0x70
    }

    private static let wordSeed: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let wordPrime: UInt64 = 0x100_0000_01b3

    /// The word hashes of any text: lower-cased, split at whitespace, links left out, each run
    /// of letters and digits hashed (64-bit FNV-1a of its scalars).
    static func words(_ text: String) -> Set<UInt64> {
        var hashes = Set<UInt64>()
        var word: UInt64 = wordSeed
        var length = 0
        func finish() {
            if length > 0 { hashes.insert(word) }
            word = wordSeed
            length = 0
        }
        for token in text.lowercased().split(whereSeparator: \.isWhitespace) where !token.hasPrefix("http") {
            for scalar in token.unicodeScalars {
                if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                    word = (word ^ UInt64(scalar.value)) &* wordPrime
                    length += 1
                } else {
                    finish()
                }
            }
            finish()
        }
        return hashes
    }

    /// A fingerprint of the hashes `words`, as kept in a store.
    public init(words: [UInt64]) {
        self.words = Array(Set(words)).sorted()
    }

    /// Whether a post with this fingerprint, by the same author, is a re-draft of `other`.
    public func isRedraft(of other: ContentFingerprint) -> Bool {
        var shared = 0
        var (i, j) = (0, 0)
        while i < words.count, j < other.words.count {
            if words[i] == other.words[j] {
                shared += 1
                i += 1
                j += 1
            } else if words[i] < other.words[j] {
                i += 1
            } else {
                j += 1
            }
        }
        let allowed = min(words.count, other.words.count) >= Self.wordsForAChangedWord ? Self.redraftDifference : 1
        return (words.count - shared) + (other.words.count - shared) <= allowed
    }
}

/// "N new above you": how many posts above the reader's post they have not read, counted as a
/// reader would. Every post above counts, by its place, not its time (a post that arrived late
/// with an older time is new too); a post the reader read in another form does not (a boost of
/// it, a re-draft); a deleted post is not in the timeline; and the same content twice (a post
/// and a boost of it, two boosts) counts once.
public enum UnreadCount {
    /// The posts above display index `anchor` of `index` not in `read`.
    public static func above(_ anchor: Int, in index: TimelineIndex, read: ReadPosts) -> Int {
        counts(in: index, read: read, upTo: anchor).last ?? 0
    }

    /// For every display index `i` of `index` up to `limit` (all of them by default), the count
    /// above it: element `i` is `above(i, in: index, read: read)`, made in one pass.
    public static func counts(in index: TimelineIndex, read: ReadPosts, upTo limit: Int? = nil) -> [Int] {
        let posts = index.posts
        let anchor = min(limit ?? posts.count, posts.count)
        var result = [0]
        result.reserveCapacity(max(0, anchor) + 1)
        // Each post's fingerprint, made once per index for every count on it.
        let prints = fingerprints(of: index)
        // What is counted, by the post (a boost's original) and by its author's content.
        var counted = ReadPosts(counting: .max)
        var count = 0
        for position in 0..<max(0, anchor) {
            let post = posts[position]
            defer { result.append(count) }
            guard !read.contains(post, fingerprint: { prints[position] }), !counted.contains(post, fingerprint: { prints[position] }) else {
                continue
            }
            count += 1
            if let original = post.boostOf {
                counted.insert(id: original, author: nil, fingerprint: nil)
                counted.insert(id: post.id, author: nil, fingerprint: nil)
            } else {
                counted.insert(id: post.id, author: post.author, fingerprint: prints[position])
            }
        }
        return result
    }

    /// The fingerprints of `index`'s posts, in display order, made once per index.
    static func fingerprints(of index: TimelineIndex) -> [ContentFingerprint?] {
        index.attachment(ObjectIdentifier(UnreadCount.self)) { Fingerprints(index.posts.map { ContentFingerprint($0.text) }) }.values
    }

    /// `index`'s fingerprints, when they were made.
    static func existingFingerprints(of index: TimelineIndex) -> [ContentFingerprint?]? {
        index.existingAttachment(ObjectIdentifier(UnreadCount.self), as: Fingerprints.self)?.values
    }

    /// Gives `index` the fingerprints its counts need, taking each post's from `previous` (an
    /// index of the same timeline before a change) where that holds the same post with the same
    /// text: after an insertion, a deletion or an edit, only the new and edited posts are
    /// fingerprinted again. Nothing is done when `previous` was never counted on.
    public static func reuseFingerprints(in index: TimelineIndex, from previous: TimelineIndex) {
        guard let old = previous.existingAttachment(ObjectIdentifier(UnreadCount.self), as: Fingerprints.self) else { return }
        var known: [String: (text: String?, fingerprint: ContentFingerprint?)] = [:]
        known.reserveCapacity(previous.posts.count)
        for (post, fingerprint) in zip(previous.posts, old.values) { known[post.id] = (post.text, fingerprint) }
        _ = index.attachment(ObjectIdentifier(UnreadCount.self)) {
            Fingerprints(
                index.posts.map { post in
                    if let kept = known[post.id], kept.text == post.text { return kept.fingerprint }
                    return ContentFingerprint(post.text)
                })
        }
    }

    /// The fingerprints of an index's posts, in display order: its attachment.
    struct Fingerprints: Sendable {
        let values: [ContentFingerprint?]

        init(_ values: [ContentFingerprint?]) {
            self.values = values
        }
    }
}
