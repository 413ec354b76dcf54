import Foundation
import TimelineEngineCore

/// A `TextIndex` kept in a file, so that a process that starts on a timeline it indexed before
/// does not index it again: written once, then mapped into memory, where a query reads the
/// few pages it needs (a million posts' index is about 300 MB; mapping it costs a few
/// milliseconds, reading it would cost seconds).
///
/// The file holds the index's arrays as they are in memory, each at an 8-byte boundary, after a
/// header with the text count and a `tag` the writer chooses (the store's version of the
/// timeline), which the reader must name: an index of another timeline is never used. The
/// layout is this platform's (little-endian, 64-bit); a file from another is refused.
///
/// A damaged file must not crash a process that maps it: the header's sizes are checked against
/// the file's, the offsets of every postings list, text and word against the arrays they point
/// into, and a query checks the text numbers and word numbers it reads. A damaged weight gives
/// a wrong score, not a crash. The file must not be truncated while mapped: writers replace it
/// by renaming a new file over it.
public enum TextIndexFile {
    /// Why a file could not be written or used, with its path.
    public typealias Problem = IndexFile.Problem

    /// "TLTEXTIX", little-endian.
    static let magic: UInt64 = 0x5849_5458_4554_4C54
    static let version: UInt64 = 1
    /// The strides and word size the file's arrays were written with.
    static let layout =
        UInt64(MemoryLayout<TextIndex.Posting>.stride) | UInt64(MemoryLayout<TextIndex.TextWord>.stride) << 8
        | UInt64(MemoryLayout<Int>.size) << 16 | UInt64(1.littleEndian == 1 ? 1 : 0) << 24
    static let headerWords = 10

    /// Writes `index` to `path`, tagged `tag`: to a new file beside it, renamed over `path`, so
    /// that a process mapping the old file keeps reading it whole.
    public static func write(_ index: TextIndex, to path: String, tag: UInt64) throws(Problem) {
        let columns = index.columns
        let header: [UInt64] = [
            magic, version, tag, UInt64(index.textCount), UInt64(columns.vocabulary.count), UInt64(columns.postings.count),
            UInt64(columns.vocabulary.bytes.count), UInt64(columns.vocabulary.slots.count), layout, 0,
        ]
        let vocabulary = columns.vocabulary
        try IndexFile.write(
            to: path, header: header,
            sections: [
                UnsafeRawBufferPointer(columns.postingStarts), UnsafeRawBufferPointer(columns.postings), UnsafeRawBufferPointer(columns.textStarts),
                UnsafeRawBufferPointer(columns.textWords), UnsafeRawBufferPointer(columns.documentFrequency),
                UnsafeRawBufferPointer(vocabulary.bytes),
                UnsafeRawBufferPointer(vocabulary.starts), UnsafeRawBufferPointer(vocabulary.hashes), UnsafeRawBufferPointer(vocabulary.slots),
            ])
    }

    /// The index in the file at `path`, mapped: it must be tagged `tag` and index `textCount`
    /// texts. Throws when the file is missing, of another tag or size, or damaged.
    public static func map(_ path: String, tag: UInt64, textCount: Int) throws(Problem) -> TextIndex {
        try IndexFile.map(path, headerWords: headerWords) { file, release throws(IndexFile.Refusal) in
            TextIndex(columns: try columns(file, tag: tag, textCount: textCount, release: release), textCount: textCount)
        }
    }

    /// The columns a file's bytes hold, checked. `release` is called when the columns go, and
    /// not at all when this throws.
    static func columns(
        _ file: UnsafeRawBufferPointer, tag: UInt64, textCount: Int,
        release: @escaping @Sendable () -> Void
    ) throws(IndexFile.Refusal) -> TextIndexColumns {
        let header = IndexFile.header(file, words: headerWords)
        guard header[0] == magic else { throw IndexFile.Refusal(reason: "not a text index") }
        guard header[1] == version else {
            throw IndexFile.Refusal(reason: "a text index of version \(header[1]); this engine reads version \(version)")
        }
        guard header[8] == layout else { throw IndexFile.Refusal(reason: "a text index written on another platform") }
        guard header[2] == tag else { throw IndexFile.Refusal(reason: "an index of another version of the timeline") }
        guard header[3] == UInt64(textCount) else { throw IndexFile.Refusal(reason: "an index of \(header[3]) texts, not \(textCount)") }
        let limit = UInt64(file.count)
        guard header[4...7].allSatisfy({ $0 <= limit }) else { throw IndexFile.Refusal(reason: "damaged: its sizes exceed the file's") }
        let words = Int(header[4])
        let postingCount = Int(header[5])
        let byteCount = Int(header[6])
        let slotCount = Int(header[7])
        var sections = IndexFile.Sections(file, headerWords: headerWords)
        let postingStarts = try sections.next(words + 1, Int.self)
        let postings = try sections.next(postingCount, TextIndex.Posting.self)
        let textStarts = try sections.next(textCount + 1, Int.self)
        let textWords = try sections.next(postingCount, TextIndex.TextWord.self)
        let documentFrequency = try sections.next(words, Int32.self)
        let bytes = try sections.next(byteCount, UInt8.self)
        let starts = try sections.next(words + 1, Int.self)
        let hashes = try sections.next(words, UInt64.self)
        let slots = try sections.next(slotCount, Int32.self)
        try sections.checkEnd()
        guard slotCount > words, slotCount & (slotCount - 1) == 0 else {
            throw IndexFile.Refusal(reason: "damaged: a word table of \(slotCount) slots")
        }
        guard isOffsets(postingStarts, upTo: postingCount), isOffsets(textStarts, upTo: postingCount), isOffsets(starts, upTo: byteCount) else {
            throw IndexFile.Refusal(reason: "damaged: offsets out of order or out of range")
        }
        return TextIndexColumns(
            postingStarts: postingStarts, postings: postings, textStarts: textStarts, textWords: textWords,
            documentFrequency: documentFrequency,
            vocabulary: WordLookup(bytes: bytes, starts: starts, hashes: hashes, slots: slots), release: release)
    }

    /// Whether `offsets` start at 0, never decrease, and end at `end`.
    private static func isOffsets(_ offsets: UnsafeBufferPointer<Int>, upTo end: Int) -> Bool {
        guard offsets.first == 0, offsets.last == end else { return false }
        var previous = 0
        for offset in offsets {
            if offset < previous { return false }
            previous = offset
        }
        return true
    }
}
