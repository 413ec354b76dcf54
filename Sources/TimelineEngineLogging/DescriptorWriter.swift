import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes bytes to a file descriptor with `write(2)`, retrying interrupted and partial writes,
/// and reports a failure instead of trapping: Foundation's non-throwing `FileHandle.write`
/// stops the process when the disk is full (`ENOSPC`) or the reader went away.
enum DescriptorWriter {
    /// Writes all of `data` to `descriptor`; the `errno` of the failure, or nil when all was written.
    static func write(_ data: Data, to descriptor: Int32) -> Int32? {
        data.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if written == 0 { return EIO }
                offset += written
            }
            return nil
        }
    }

    /// The system's message for `code`.
    static func message(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, pointer, count)
        #else
        Darwin.write(descriptor, pointer, count)
        #endif
    }
}
