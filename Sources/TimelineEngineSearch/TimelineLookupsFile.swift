import Foundation
import TimelineEngineCore

/// The lookups of a `TimelineIndex` kept in a file: written by `write` after the index's header
/// words (`IndexFile`), mapped by `map`, which checks that every display index in the time order
/// is below the post count.
extension TimelineLookups {
    /// "TLLOOKUP", little-endian.
    static let magic: UInt64 = 0x5055_4B4F_4F4C_4C54
    static let version: UInt64 = 1
    static let headerWords = 8
    static let layout = UInt64(MemoryLayout<Int>.size) | UInt64(1.littleEndian == 1 ? 1 : 0) << 8

    /// Writes the time order and an id table of `index` to `path`, tagged `tag`.
    public static func write(_ index: TimelineIndex, to path: String, tag: UInt64) throws(IndexFile.Problem) {
        let lookups = index.lookups
        let slots = index.posts.withUnsafeBufferPointer { idTable($0) }
        let header: [UInt64] = [magic, version, tag, UInt64(index.count), UInt64(slots.count), layout, 0, 0]
        try slots.withUnsafeBufferPointer { slots throws(IndexFile.Problem) in
            try IndexFile.write(
                to: path, header: header,
                sections: [
                    UnsafeRawBufferPointer(lookups.order), UnsafeRawBufferPointer(lookups.times), UnsafeRawBufferPointer(slots),
                ])
        }
    }

    /// The lookups in the file at `path`, mapped: it must be tagged `tag` and be of `count`
    /// posts. Throws when the file is missing, of another tag or size, or damaged.
    public static func map(_ path: String, tag: UInt64, count: Int) throws(IndexFile.Problem) -> TimelineLookups {
        try IndexFile.map(path, headerWords: headerWords) { file, release throws(IndexFile.Refusal) in
            let header = IndexFile.header(file, words: headerWords)
            guard header[0] == magic else { throw IndexFile.Refusal(reason: "not a timeline's lookups") }
            guard header[1] == version else {
                throw IndexFile.Refusal(reason: "lookups of version \(header[1]); this engine reads version \(version)")
            }
            guard header[5] == layout else { throw IndexFile.Refusal(reason: "lookups written on another platform") }
            guard header[2] == tag else { throw IndexFile.Refusal(reason: "the lookups of another version of the timeline") }
            guard header[3] == UInt64(count) else { throw IndexFile.Refusal(reason: "the lookups of \(header[3]) posts, not \(count)") }
            let slotCount = header[4]
            guard slotCount <= UInt64(file.count), slotCount == 0 || slotCount & (slotCount - 1) == 0 else {
                throw IndexFile.Refusal(reason: "damaged: an id table of \(slotCount) slots")
            }
            var sections = IndexFile.Sections(file, headerWords: headerWords)
            let order = try sections.next(count, Int32.self)
            let times = try sections.next(count, Double.self)
            let slots = try sections.next(Int(slotCount), Int32.self)
            try sections.checkEnd()
            guard order.allSatisfy({ $0 >= 0 && Int($0) < count }) else { throw IndexFile.Refusal(reason: "damaged: a display index out of range") }
            return TimelineLookups(order: order, times: times, idSlots: slots, release: release)
        }
    }
}
