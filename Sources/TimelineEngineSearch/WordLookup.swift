import TimelineEngineCore

/// The read-only form of a `WordTable`: the same words, numbers and hashes over buffers that a
/// `TextIndexColumns` owns, whether the index was built in memory or mapped from a file.
///
/// A mapped file may be damaged, so a lookup checks every number it reads before using it: a
/// word number out of range, or a table with no empty slot, is a word not found.
struct WordLookup {
    /// Every word's bytes, end to end.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Word `i` is `bytes[starts[i]..<starts[i + 1]]`: `count + 1` entries, non-decreasing,
    /// within `bytes` (checked when a file is mapped).
    let starts: UnsafeBufferPointer<Int>
    let hashes: UnsafeBufferPointer<UInt64>
    /// Word numbers by hash, -1 where empty; the count is a power of two.
    let slots: UnsafeBufferPointer<Int32>

    /// How many words the table holds.
    var count: Int { hashes.count }

    /// The number of `word`, if the table holds it.
    func find(_ word: UnsafeBufferPointer<UInt8>) -> Int32? {
        let hash = WordTable.hash(word)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        for _ in 0..<slots.count {
            let id = slots[slot]
            guard id >= 0, Int(id) < count else { return nil }
            if hashes[Int(id)] == hash && equals(Int(id), word) { return id }
            slot = (slot + 1) & mask
        }
        return nil
    }

    private func equals(_ id: Int, _ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = starts[id]
        let end = starts[id + 1]
        guard end - start == word.count else { return false }
        return UnsafeBufferPointer(rebasing: bytes[start..<end]).elementsEqual(word)
    }
}
