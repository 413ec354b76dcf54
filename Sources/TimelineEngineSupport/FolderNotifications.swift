import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Notifications of changes in one folder: inotify on Linux (the name of each file created,
/// written or moved in), a dispatch source on the folder on Apple platforms (no names). The
/// handler runs on a dispatch queue. Nil when the platform or the folder gives none; the
/// caller then polls. The Directory transport hears other devices' files land through it, and
/// `engine sync watch` hears saves to its store.
// @unchecked: a dispatch source may be cancelled from any thread (Dispatch documents it as thread-safe).
public final class FolderNotifications: @unchecked Sendable {
    private let source: any DispatchSourceProtocol

    public init?(path: String, handler: @escaping @Sendable (_ name: String?) -> Void) {
        let queue = DispatchQueue(label: "timeline-engine.directory-notifications")
        #if os(Linux)
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MODIFY)
        guard inotify_add_watch(descriptor, path, mask) >= 0 else {
            close(descriptor)
            return nil
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
                guard count > 0 else { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let (length, name) = buffer.withUnsafeBytes { raw -> (Int, String?) in
                        let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                        let length = Int(event.len)
                        guard length > 0 else { return (0, nil) }
                        let start = offset + MemoryLayout<inotify_event>.size
                        let bytes = raw[start..<min(count, start + length)].prefix { $0 != 0 }
                        return (length, String(decoding: bytes, as: UTF8.self))
                    }
                    handler(name)
                    offset += MemoryLayout<inotify_event>.size + length
                }
            }
        }
        source.setCancelHandler { close(descriptor) }
        #elseif canImport(Darwin)
        let descriptor = open(path, O_EVTONLY)
        guard descriptor >= 0 else { return nil }
        let source = DispatchSource.makeFileSystemObjectSource(fileDescriptor: descriptor, eventMask: [.write, .link, .rename], queue: queue)
        source.setEventHandler { handler(nil) }
        source.setCancelHandler { close(descriptor) }
        #else
        return nil
        #endif
        source.resume()
        self.source = source
    }

    public func cancel() {
        source.cancel()
    }
}
