import Foundation
import TimelineEngineCore
import TimelineEngineSupport

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
public final class SessionRecorder: Sendable {
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
        get { state.withLock { $0.threshold } }
        set { state.withLock { $0.threshold = newValue } }
    }

    /// The lines not yet written, the threshold, and the last event's time.
    private struct Buffer {
        var data = Data()
        var threshold = 64 * 1024
        var lastAt: Date
    }

    private let state: Locked<Buffer>
    private let clock: @Sendable () -> Date
    private let output: @Sendable (Data) -> Void
    private let handle: FileHandle?

    /// Starts a session and writes its header. Throws when the file cannot be created.
    public init(header: SessionHeader, to destination: Destination, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.header = header
        self.clock = clock
        state = Locked(Buffer(lastAt: header.startedAt))
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
        state.withLock { if !$0.data.isEmpty { output($0.data) } }
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
        state.withLock { state in
            var event = event
            if event.at < state.lastAt { event.at = state.lastAt }
            state.lastAt = event.at
            state.data.append(contentsOf: SessionWriter.line(for: event).utf8)
            switch event.kind {
            case .lifecycle(.background), .lifecycle(.terminate): write(&state)
            default: if state.data.count >= state.threshold { write(&state) }
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
        state.withLock { write(&$0) }
    }

    /// Writes the buffered lines out; called with the lock held, so that lines keep their order.
    private func write(_ state: inout Buffer) {
        guard !state.data.isEmpty else { return }
        output(state.data)
        state.data.removeAll(keepingCapacity: true)
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
