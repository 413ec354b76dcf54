import TimelineEngineCore

/// The words met while one part of a collection is indexed, numbered in the order of first use:
/// the table every word of every text is looked up in while a `TextIndex` is built.
///
/// A `WordTable` answers the same question, but each of its lookups reads a slot, the word's
/// hash, where its bytes start and the bytes themselves, four places in memory one after the
/// other. Here a slot holds the word's first eight bytes, its length and part of its hash
/// beside its number, so a word of eight bytes or fewer, most words, is found by reading its
/// slot alone. Its hash mixes eight bytes at a time. The table is at most four fifths full:
/// with four slots to a cache line a longer probe mostly stays in the line, and a smaller table
/// stays in the core's own cache. The part's words become a `WordTable`, with the same
/// numbers, when the scan is over (`table()`).
struct PartVocabulary {
    private struct Slot {
        /// The word's first eight bytes, little-endian, zero after its end (a word never holds
        /// a zero byte: it is made of letters and digits).
        var prefix: UInt64
        /// The high 24 bits of the hash above the word's length (at most 255).
        var check: UInt32
        /// The word's number; -1 where the slot is empty.
        var id: Int32
    }

    private var slots: [Slot]
    /// Every word's bytes, end to end; word `i` is `bytes[starts[i]..<starts[i + 1]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int] = [0]

    /// A table sized for about `capacity` words.
    init(capacity: Int = 64) {
        var size = 16
        while size < capacity * 2 { size *= 2 }
        slots = [Slot](repeating: Slot(prefix: 0, check: 0, id: -1), count: size)
    }

    /// How many words the table holds.
    var count: Int { starts.count - 1 }

    /// The number of `word`, inserted with the next number when the table does not hold it.
    mutating func insert(_ word: UnsafeBufferPointer<UInt8>) -> Int32 {
        let (prefix, hash) = Self.hash(word)
        let check = UInt32(truncatingIfNeeded: hash >> 40) << 8 | UInt32(min(word.count, 255))
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry.id < 0 { break }
            if entry.prefix == prefix && entry.check == check && (word.count <= 8 || tailEquals(Int(entry.id), word)) { return entry.id }
            slot = (slot + 1) & mask
        }
        let id = Int32(count)
        slots[slot] = Slot(prefix: prefix, check: check, id: id)
        bytes.append(contentsOf: word)
        starts.append(bytes.count)
        if count * 5 > slots.count * 4 { grow() }
        return id
    }

    /// The word's first eight bytes as a slot keeps them, and its hash: the first eight bytes
    /// and the length in one multiplication, each further eight bytes in one more, then a
    /// final mix so that the low bits, which pick the slot, depend on every byte.
    private static func hash(_ word: UnsafeBufferPointer<UInt8>) -> (prefix: UInt64, hash: UInt64) {
        let length = word.count
        var prefix: UInt64 = 0
        var index = 0
        while index < min(length, 8) {
            prefix |= UInt64(word[index]) << (8 * UInt64(index))
            index += 1
        }
        var hash = (prefix ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15
        while index < length {
            var chunk: UInt64 = 0
            var shift: UInt64 = 0
            while index < length && shift < 64 {
                chunk |= UInt64(word[index]) << shift
                index += 1
                shift += 8
            }
            hash = (hash ^ (hash >> 29) ^ chunk) &* 0xBF58_476D_1CE4_E5B9
        }
        hash ^= hash >> 32
        hash = hash &* 0xD6E8_FEB8_6659_FD93
        return (prefix, hash ^ (hash >> 32))
    }

    /// Whether word `id`, which begins as `word` does, has the same bytes after the eighth.
    private func tailEquals(_ id: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[id]
        let end = starts[id + 1]
        guard end - start == word.count else { return false }
        var index = 8
        while index < word.count {
            if bytes[start + index] != word[index] { return false }
            index += 1
        }
        return true
    }

    private mutating func grow() {
        var grown = [Slot](repeating: Slot(prefix: 0, check: 0, id: -1), count: slots.count * 2)
        let mask = grown.count - 1
        bytes.withUnsafeBufferPointer { all in
            for entry in slots where entry.id >= 0 {
                let id = Int(entry.id)
                var slot = Int(truncatingIfNeeded: Self.hash(UnsafeBufferPointer(rebasing: all[starts[id]..<starts[id + 1]])).hash) & mask
                while grown[slot].id >= 0 { slot = (slot + 1) & mask }
                grown[slot] = entry
            }
        }
        slots = grown
    }

    /// The words as a `WordTable`, each with the number it has here.
    func table() -> WordTable {
        var table = WordTable(capacity: count)
        bytes.withUnsafeBufferPointer { all in
            for id in 0..<count { _ = table.insert(UnsafeBufferPointer(rebasing: all[starts[id]..<starts[id + 1]])) }
        }
        return table
    }
}
