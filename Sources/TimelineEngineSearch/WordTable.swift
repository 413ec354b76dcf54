import TimelineEngineCore

/// A set of words, each numbered in the order it was first inserted, keyed by the word's UTF-8
/// bytes: a lookup hashes the bytes it is given and makes no `String`.
///
/// The words are kept end to end in one byte array, and the table is open addressing with
/// linear probing, at most half full. `Dictionary<String, Int32>` does the same job, but the
/// text index looks up every word of every post, and making a `String` for each one was most of
/// its build time.
struct WordTable: Sendable {
    /// Every word's bytes, end to end.
    private var bytes: [UInt8] = []
    /// Word `i` is `bytes[starts[i]..<starts[i + 1]]`.
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Word numbers by hash, -1 where empty; the count is a power of two.
    private var slots: [Int32]

    /// A table sized for about `capacity` words.
    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = [Int32](repeating: -1, count: size)
    }

    /// How many words the table holds.
    var count: Int { hashes.count }

    /// FNV-1a over the bytes, then a final mix so that the low bits, which pick the slot,
    /// depend on every byte.
    static func hash(_ word: UnsafeBufferPointer<UInt8>) -> UInt64 { ByteHash.hash(word) }

    /// The number of `word`, inserted with the next number when the table does not hold it.
    mutating func insert(_ word: UnsafeBufferPointer<UInt8>) -> Int32 {
        insert(word, hash: Self.hash(word))
    }

    mutating func insert(_ word: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32 {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let id = slots[slot]
            if id < 0 { break }
            if hashes[Int(id)] == hash && equals(Int(id), word) { return id }
            slot = (slot + 1) & mask
        }
        let id = Int32(hashes.count)
        slots[slot] = id
        hashes.append(hash)
        bytes.append(contentsOf: word)
        starts.append(bytes.count)
        if hashes.count * 2 > slots.count { grow() }
        return id
    }

    /// Word `id`'s bytes, for as long as `body` runs.
    func withWord<Result>(_ id: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { all in try body(UnsafeBufferPointer(rebasing: all[starts[id]..<starts[id + 1]])) }
    }

    /// The table's four arrays, for a `TextIndexColumns` to keep as a `WordLookup`.
    var columns: (bytes: [UInt8], starts: [Int], hashes: [UInt64], slots: [Int32]) { (bytes, starts, hashes, slots) }

    /// Word `id`'s hash, as `hash(_:)` gave it.
    func hash(of id: Int) -> UInt64 { hashes[id] }

    private func equals(_ id: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[id]
        let end = starts[id + 1]
        guard end - start == word.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            var index = 0
            while index < word.count {
                if all[start + index] != word[index] { return false }
                index += 1
            }
            return true
        }
    }

    private mutating func grow() {
        var grown = [Int32](repeating: -1, count: slots.count * 2)
        let mask = grown.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while grown[slot] >= 0 { slot = (slot + 1) & mask }
            grown[slot] = Int32(id)
        }
        slots = grown
    }
}
