import Foundation
import TimelineEngineKit

/// The progress indicator of `engine timeline fetch`, on stderr: nothing for a quick fetch;
/// once a fetch has taken a second, a line saying what it is doing (the refresh, or which
/// request of the reach for the reader's post, or the merge) and what it is waiting for,
/// repeated every few seconds (or kept on one line, redrawn, when stderr is a terminal); and a
/// line for each failed attempt that will be retried.
final class FetchProgress: Sendable {
    private struct Shown {
        var state = "attempt 1"
        /// What the fetch is doing beyond the refresh ("reaching post X, request 3: "), or empty.
        var phase = ""
        var finished = false
        var drawn = false
    }

    private let shown = Locked(Shown())
    private let source: String
    private let start = Date()
    private let interactive: Bool

    init(source: String) {
        self.source = source
        interactive = isatty(STDERR_FILENO) != 0
    }

    /// Starts the clock that prints the waiting line.
    func start(after delay: Double = 1) {
        let first = FetchProgressLines(source: source, interactive: interactive, start: start, delay: delay)
        Thread.detachNewThread { [self] in
            var lines = first
            while true {
                let (done, state) = shown.withLock { ($0.finished, $0.phase + $0.state) }
                if done { return }
                if let text = lines.line(at: Date(), state: state) { draw(text) }
                Thread.sleep(forTimeInterval: interactive ? 0.1 : 0.25)
            }
        }
    }

    /// Receives the fetcher's reports.
    func report(_ progress: SourceFetcher.Progress) {
        switch progress {
        case .attempting(let number, let total):
            shown.withLock { $0.state = total > 1 ? "attempt \(number) of \(total)" : "waiting for the answer" }
        case .failed(let number, let message, let retryIn):
            guard let retryIn else { return }
            shown.withLock { $0.state = "waiting \(String(format: "%.2f", retryIn)) s before attempt \(number + 1)" }
            clearLine()
            draw("attempt \(number) failed: \(TerminalText.lineSafe(message)); retrying in \(String(format: "%.2f", retryIn)) s\n")
        case .reaching(let post, let request):
            shown.withLock {
                $0.phase = "reaching post \(TerminalText.escaped(post)), request \(request): "
                $0.state = "waiting for the answer"
            }
        case .merging(let posts):
            shown.withLock {
                $0.phase = ""
                $0.state = "merging \(posts) post\(posts == 1 ? "" : "s") into the cache"
            }
        }
    }

    /// Stops the indicator and clears its line.
    func finish() {
        shown.withLock { $0.finished = true }
        clearLine()
    }

    private func clearLine() {
        let wasDrawn = shown.withLock { $0.drawn }
        if interactive, wasDrawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func draw(_ text: String) {
        shown.withLock { $0.drawn = true }
        FileHandle.standardError.write(Data(text.utf8))
    }
}

/// What the progress indicator draws at a given time: nothing before `delay`; then, on a
/// terminal, the line redrawn in place; otherwise a line every 3 seconds. Decided from the time
/// alone, so that it is tested without waiting.
struct FetchProgressLines {
    let source: String
    let interactive: Bool
    let start: Date
    let delay: Double
    private var lastLine = Date.distantPast

    init(source: String, interactive: Bool, start: Date, delay: Double = 1) {
        self.source = source
        self.interactive = interactive
        self.start = start
        self.delay = delay
    }

    /// The text to draw at `now` while the fetch is in `state`, or nil.
    mutating func line(at now: Date, state: String) -> String? {
        let elapsed = now.timeIntervalSince(start)
        guard elapsed >= delay else { return nil }
        if interactive { return "\rfetching \(source): \(state), \(String(format: "%.1f", elapsed)) s \u{1B}[K" }
        guard now.timeIntervalSince(lastLine) >= 3 else { return nil }
        lastLine = now
        return "fetching \(source): \(state), \(Int(elapsed)) s\n"
    }
}
