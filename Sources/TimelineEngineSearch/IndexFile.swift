import Foundation
import TimelineEngineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the files an index is kept in share (`TextIndexFile`, `TimelineLookups`): arrays
/// written as they are in memory after a header of 64-bit words, each at an 8-byte boundary;
/// written to a new file renamed over the old one, so that a process mapping the old file keeps
/// reading it whole; mapped read-only, and checked against the file's size before any use.
public enum IndexFile {
    /// Why a file could not be written or used, with its path.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let path: String
        public let reason: String

        public var description: String { "\(path): \(reason)" }
    }

    /// A file name for `key` (a store's scope, say): 16 hexadecimal digits of its hash.
    public static func fileName(for key: String) -> String {
        var key = key
        let name = String(key.withUTF8 { WordTable.hash($0) }, radix: 16)
        return String(repeating: "0", count: 16 - name.count) + name
    }

    /// The reason a file's bytes cannot be used, without its path.
    struct Refusal: Error {
        let reason: String
    }

    /// Writes `header`, then each of `sections` padded to 8 bytes, to a new file beside `path`,
    /// renamed over it.
    static func write(to path: String, header: [UInt64], sections: [UnsafeRawBufferPointer]) throws(Problem) {
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
            for section in sections { try append(section) }
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

    /// Maps the file at `path` and hands its bytes to `make`, with the function that unmaps
    /// them, which `make`'s result calls when it goes; unmapped at once when `make` throws.
    static func map<Result>(
        _ path: String, headerWords: Int,
        _ make: (UnsafeRawBufferPointer, _ release: @escaping @Sendable () -> Void) throws(Refusal) -> Result
    ) throws(Problem) -> Result {
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
            throw Problem(path: path, reason: "not an index file: \(size) bytes, shorter than its header")
        }
        let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0)
        close(descriptor)
        guard let base = mapped, Int(bitPattern: base) != -1 else {
            throw Problem(path: path, reason: "cannot map it: \(String(cString: strerror(errno)))")
        }
        let address = Int(bitPattern: base)
        let unmap: @Sendable () -> Void = { _ = munmap(UnsafeMutableRawPointer(bitPattern: address), size) }
        do {
            return try make(UnsafeRawBufferPointer(start: base, count: size), unmap)
        } catch {
            unmap()
            throw Problem(path: path, reason: error.reason)
        }
    }

    /// The header's words.
    static func header(_ file: UnsafeRawBufferPointer, words: Int) -> [UInt64] {
        (0..<words).map { file.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
    }

    /// Cuts a file's bytes into its sections, in order, after a header of `headerWords` words.
    struct Sections {
        let file: UnsafeRawBufferPointer
        var offset: Int

        init(_ file: UnsafeRawBufferPointer, headerWords: Int) {
            self.file = file
            offset = headerWords * 8
        }

        /// The next section: `count` elements. The counts are checked to be at most the file's
        /// size before, so no product or sum overflows.
        mutating func next<Element>(_ count: Int, _: Element.Type) throws(Refusal) -> UnsafeBufferPointer<Element> {
            let bytes = count * MemoryLayout<Element>.stride
            guard offset + bytes <= file.count else { throw Refusal(reason: "damaged: \(file.count) bytes, shorter than its header says") }
            let start = file.baseAddress!.advanced(by: offset).assumingMemoryBound(to: Element.self)
            offset += (bytes + 7) / 8 * 8
            return UnsafeBufferPointer(start: start, count: count)
        }

        /// Throws unless every byte of the file is in a section.
        func checkEnd() throws(Refusal) {
            guard offset == file.count else { throw Refusal(reason: "damaged: \(file.count) bytes, not the \(offset) its header says") }
        }
    }
}
