#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

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
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// "TLTEXTIX", little-endian.
    static let magic: UInt64 = 0x5849_5458_4554_4C54
    static let version: UInt64 = 1
    /// The strides and word size the file's arrays were written with.
    static let layout = UInt64(MemoryLayout<TextIndex.Posting>.stride) | UInt64(MemoryLayout<TextIndex.TextWord>.stride) << 8
        | UInt64(MemoryLayout<Int>.size) << 16 | UInt64(1.littleEndian == 1 ? 1 : 0) << 24
    static let headerWords = 10

    /// Writes `index` to `path`, tagged `tag`: to a new file beside it, renamed over `path`, so
    /// that a process mapping the old file keeps reading it whole.
    public static func write(_ index: TextIndex, to path: String, tag: UInt64) throws(Problem) {
        let columns = index.columns
        let header: [UInt64] = [magic, version, tag, UInt64(index.textCount), UInt64(columns.vocabulary.count), UInt64(columns.postings.count),
                                UInt64(columns.vocabulary.bytes.count), UInt64(columns.vocabulary.slots.count), layout, 0]
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
            throw Problem(path: path, reason: "cannot create \(temporary)")
        }
        do {
            var written = 0
            func append(_ raw: UnsafeRawBufferPointer) throws {
                if raw.count > 0, let base = raw.baseAddress {
                    try handle.write(contentsOf: Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none))
                }
                written += raw.count
                let padding = (8 - written % 8) % 8
                if padding > 0 {
                    try handle.write(contentsOf: Data(count: padding))
                    written += padding
                }
            }
            try header.withUnsafeBytes { try append($0) }
            try append(UnsafeRawBufferPointer(columns.postingStarts))
            try append(UnsafeRawBufferPointer(columns.postings))
            try append(UnsafeRawBufferPointer(columns.textStarts))
            try append(UnsafeRawBufferPointer(columns.textWords))
            try append(UnsafeRawBufferPointer(columns.documentFrequency))
            try append(UnsafeRawBufferPointer(columns.vocabulary.bytes))
            try append(UnsafeRawBufferPointer(columns.vocabulary.starts))
            try append(UnsafeRawBufferPointer(columns.vocabulary.hashes))
            try append(UnsafeRawBufferPointer(columns.vocabulary.slots))
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw Problem(path: path, reason: "cannot write \(temporary): \(error.localizedDescription)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw Problem(path: path, reason: "cannot rename \(temporary) over it: \(reason)")
        }
    }

    /// The index in the file at `path`, mapped: it must be tagged `tag` and index `textCount`
    /// texts. Throws when the file is missing, of another tag or size, or damaged.
    public static func map(_ path: String, tag: UInt64, textCount: Int) throws(Problem) -> TextIndex {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Problem(path: path, reason: String(cString: strerror(errno))) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Problem(path: path, reason: reason)
        }
        let size = Int(status.st_size)
        guard size >= headerWords * 8 else {
            close(descriptor)
            throw Problem(path: path, reason: "not a text index: \(size) bytes, shorter than its header")
        }
        let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        close(descriptor)
        guard let base = mapped, Int(bitPattern: base) != -1 else {
            throw Problem(path: path, reason: "cannot map it: \(String(cString: strerror(errno)))")
        }
        let address = Int(bitPattern: base)
        let unmap: @Sendable () -> Void = { _ = munmap(UnsafeMutableRawPointer(bitPattern: address), size) }
        do {
            let columns = try columns(UnsafeRawBufferPointer(start: base, count: size), tag: tag, textCount: textCount, release: unmap)
            return TextIndex(columns: columns, textCount: textCount)
        } catch {
            unmap()
            throw Problem(path: path, reason: error.reason)
        }
    }

    /// The reason a file cannot be used, without its path.
    struct Refusal: Error {
        let reason: String
    }

    /// The columns a file's bytes hold, checked. `release` is called when the columns go, and
    /// not at all when this throws.
    static func columns(_ file: UnsafeRawBufferPointer, tag: UInt64, textCount: Int,
                        release: @escaping @Sendable () -> Void) throws(Refusal) -> TextIndexColumns {
        let header = (0..<headerWords).map { file.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
        guard header[0] == magic else { throw Refusal(reason: "not a text index") }
        guard header[1] == version else { throw Refusal(reason: "a text index of version \(header[1]); this engine reads version \(version)") }
        guard header[8] == layout else { throw Refusal(reason: "a text index written on another platform") }
        guard header[2] == tag else { throw Refusal(reason: "an index of another version of the timeline") }
        guard header[3] == UInt64(textCount) else { throw Refusal(reason: "an index of \(header[3]) texts, not \(textCount)") }
        let limit = UInt64(file.count)
        guard header[4...7].allSatisfy({ $0 <= limit }) else { throw Refusal(reason: "damaged: its sizes exceed the file's") }
        let words = Int(header[4]), postingCount = Int(header[5]), byteCount = Int(header[6]), slotCount = Int(header[7])
        // Every section's place, each at an 8-byte boundary; the sizes are at most the file's, so
        // no sum overflows.
        var offset = headerWords * 8
        func section<Element>(_ count: Int, _: Element.Type) throws(Refusal) -> UnsafeBufferPointer<Element> {
            let bytes = count * MemoryLayout<Element>.stride
            guard offset + bytes <= file.count else { throw Refusal(reason: "damaged: \(file.count) bytes, shorter than its header says") }
            let start = file.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Element.self)
            offset += (bytes + 7) / 8 * 8
            return UnsafeBufferPointer(start: start, count: count)
        }
        let postingStarts = try section(words + 1, Int.self)
        let postings = try section(postingCount, TextIndex.Posting.self)
        let textStarts = try section(textCount + 1, Int.self)
        let textWords = try section(postingCount, TextIndex.TextWord.self)
        let documentFrequency = try section(words, Int32.self)
        let bytes = try section(byteCount, UInt8.self)
        let starts = try section(words + 1, Int.self)
        let hashes = try section(words, UInt64.self)
        let slots = try section(slotCount, Int32.self)
        guard offset == file.count else { throw Refusal(reason: "damaged: \(file.count) bytes, not the \(offset) its header says") }
        guard slotCount > words, slotCount & (slotCount - 1) == 0 else { throw Refusal(reason: "damaged: a word table of \(slotCount) slots") }
        guard isOffsets(postingStarts, upTo: postingCount), isOffsets(textStarts, upTo: postingCount), isOffsets(starts, upTo: byteCount) else {
            throw Refusal(reason: "damaged: offsets out of order or out of range")
        }
        return TextIndexColumns(postingStarts: postingStarts, postings: postings, textStarts: textStarts, textWords: textWords,
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
