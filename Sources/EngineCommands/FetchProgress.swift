import Foundation
import TimelineLoading

/// The progress indicator of `engine timeline fetch`, on stderr: nothing for a quick fetch;
/// once a fetch has taken a second, a line saying what it is waiting for, repeated every few
/// seconds (or kept on one line, redrawn, when stderr is a terminal); and a line for each
/// failed attempt that will be retried.
final class FetchProgress: @unchecked Sendable {
    private let lock = NSLock()
    private let source: String
    private let start = Date()
    private let interactive: Bool
    private var state = "attempt 1"
    private var finished = false
    private var drawn = false

    init(source: String) {
        self.source = source
        interactive = isatty(STDERR_FILENO) != 0
    }

    /// Starts the clock that prints the waiting line.
    func start(after delay: Double = 1) {
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: delay)
            var lastLine = Date.distantPast
            while true {
                let (done, state) = lock.withLock { (finished, self.state) }
                if done { return }
                let elapsed = Date().timeIntervalSince(start)
                if interactive {
                    draw("\rfetching \(source): \(state), \(String(format: "%.1f", elapsed)) s \u{1B}[K")
                    Thread.sleep(forTimeInterval: 0.1)
                } else if Date().timeIntervalSince(lastLine) >= 3 {
                    draw("fetching \(source): \(state), \(Int(elapsed)) s\n")
                    lastLine = Date()
                    Thread.sleep(forTimeInterval: 0.25)
                } else {
                    Thread.sleep(forTimeInterval: 0.25)
                }
            }
        }
    }

    /// Receives the fetcher's reports.
    func report(_ progress: SourceFetcher.Progress) {
        switch progress {
        case .attempting(let number, let total):
            lock.withLock { state = total > 1 ? "attempt \(number) of \(total)" : "waiting for the answer" }
        case .failed(let number, let message, let retryIn):
            guard let retryIn else { return }
            lock.withLock { state = "waiting \(String(format: "%.2f", retryIn)) s before attempt \(number + 1)" }
            clearLine()
            draw("attempt \(number) failed: \(message); retrying in \(String(format: "%.2f", retryIn)) s\n")
        }
    }

    /// Stops the indicator and clears its line.
    func finish() {
        lock.withLock { finished = true }
        clearLine()
    }

    private func clearLine() {
        let wasDrawn = lock.withLock { drawn }
        if interactive, wasDrawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func draw(_ text: String) {
        lock.withLock { drawn = true }
        FileHandle.standardError.write(Data(text.utf8))
    }
}
