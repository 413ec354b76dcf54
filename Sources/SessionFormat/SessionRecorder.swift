import Foundation
import TimelineCore

/// Records a reading session in the app, in the session format, for `engine compare`.
///
/// The app calls it where it already tells the engine about scrolling, timeline changes and its
/// lifecycle. Calls are safe from any thread or task and are written in call order. Lines are
/// buffered and written out on `background`, `terminate`, when the buffer passes
/// `flushThreshold` bytes, and on `flush()`; the header is written at once. Times never go
/// backwards in the file: an event stamped before the previous one (a clock adjustment) is
/// recorded at the previous one's time. Non-finite offsets and heights are not recorded.
///
/// A session whose last line was cut off by a crash still reads (`SessionReader` skips that
/// line with a warning).
// @unchecked: the buffer, threshold and last time are read and written under `lock` only.
public final class SessionRecorder: @unchecked Sendable {
    /// Where lines go.
    public enum Destination: Sendable {
        /// A file, created or truncated.
        case file(URL)
        /// Any sink; it receives whole lines.
        case handler(@Sendable (Data) -> Void)
    }

    public let header: SessionHeader
    /// Buffered bytes that trigger a write.
    public var flushThreshold: Int {
        get { locked { threshold } }
        set { locked { threshold = newValue } }
    }

    private let lock = NSLock()
    private let clock: @Sendable () -> Date
    private var buffer = Data()
    private var threshold = 64 * 1024
    private var lastAt: Date
    private let output: @Sendable (Data) -> Void
    private let handle: FileHandle?

    /// Starts a session and writes its header. Throws when the file cannot be created.
    public init(header: SessionHeader, to destination: Destination, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.header = header
        self.clock = clock
        self.lastAt = header.startedAt
        switch destination {
        case .file(let url):
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
            }
            let handle = try FileHandle(forWritingTo: url)
            self.handle = handle
            output = { data in try? handle.write(contentsOf: data) }
        case .handler(let handler):
            handle = nil
            output = handler
        }
        output(Data(SessionWriter.line(for: header).utf8))
    }

    deinit {
        if !buffer.isEmpty { output(buffer) }
        try? handle?.close()
    }

    // MARK: Events

    /// Records `kind` now (by the recorder's clock).
    public func record(_ kind: SessionEvent.Kind) {
        record(SessionEvent(at: clock(), kind))
    }

    /// Records an event with its own time.
    public func record(_ event: SessionEvent) {
        guard SessionRecorder.isRecordable(event.kind) else { return }
        locked {
            var event = event
            if event.at < lastAt { event.at = lastAt }
            lastAt = event.at
            buffer.append(contentsOf: SessionWriter.line(for: event).utf8)
            switch event.kind {
            case .lifecycle(.background), .lifecycle(.terminate): writeBuffer()
            default: if buffer.count >= threshold { writeBuffer() }
            }
        }
    }

    /// The whole timeline, top first.
    public func timeline(_ posts: [Post], reason: SessionEvent.TimelineReason) { record(.timeline(reason: reason, posts: posts)) }
    /// Posts inserted at `index` (0 = top).
    public func insert(_ posts: [Post], at index: Int) { record(.insert(index: index, posts: posts)) }
    public func remove(ids: [String]) { record(.remove(ids: ids)) }
    public func update(_ posts: [Post]) { record(.update(posts: posts)) }
    /// The content offset of the viewport's top.
    public func scroll(offset: Double) { record(.scroll(offset: offset)) }
    public func lifecycle(_ state: SessionEvent.Lifecycle) { record(.lifecycle(state)) }
    /// A restore point, with where the reader truly was.
    public func restorePoint(expected: SessionEvent.Expected, tag: String? = nil) { record(.restore(tag: tag, expected: expected)) }

    /// Writes buffered lines out now.
    public func flush() {
        locked { writeBuffer() }
    }

    private func writeBuffer() {
        guard !buffer.isEmpty else { return }
        output(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    static func isRecordable(_ kind: SessionEvent.Kind) -> Bool {
        func finite(_ posts: [Post]) -> Bool { posts.allSatisfy { $0.height.map(\.isFinite) ?? true } }
        switch kind {
        case .scroll(let offset, _): return offset.isFinite
        case .timeline(_, let posts), .insert(_, let posts), .update(let posts): return finite(posts)
        case .restore(_, let expected): return expected.viewportY.map(\.isFinite) ?? true
        case .remove, .lifecycle, .sync: return true
        case .fetch(let limit): return (1...1_000).contains(limit)
        }
    }
}
