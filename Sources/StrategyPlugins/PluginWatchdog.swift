import Foundation

/// A deadline on every call into a plugin: opening its library, `describe`, `make`, `propose`
/// and `free`. A call into C cannot be stopped from outside, so an overrun is reported to the
/// handler the process installed (the `engine` command prints which plugin and which call, and
/// exits 1); without one installed, as in an app, calls run unwatched.
///
/// One thread of its own, started at the first watched call, checks the calls in progress; a
/// call costs a lock taken twice.
public enum PluginWatchdog {
    /// A call that did not return in time.
    public struct Overrun: Sendable, Equatable {
        /// The plugin library's path.
        public let path: String
        /// The C entry point, for example `timeline_plugin_propose`.
        public let call: String
        /// The deadline it passed, in seconds.
        public let limit: Double

        public init(path: String, call: String, limit: Double) {
            self.path = path
            self.call = call
            self.limit = limit
        }

        /// `PATH: error: timeline_plugin_propose did not return within 10 s`.
        public var message: String {
            let seconds = limit == limit.rounded() && abs(limit) < 1e15 ? String(Int(limit)) : String(limit)
            return "\(path): error: \(call) did not return within \(seconds) s"
        }
    }

    /// Watches every plugin call from now on: a call still running after `limit` seconds is
    /// given to `onOverrun`, once, on the watchdog's own thread.
    public static func install(limit: Double, onOverrun: @escaping @Sendable (Overrun) -> Void) {
        state.install(limit: limit, onOverrun: onOverrun)
    }

    /// `body`, the call `call` into the library at `path`, watched when a deadline is installed.
    public static func watch<R>(_ path: String, _ call: String, _ body: () throws -> R) rethrows -> R {
        guard let token = state.begin(path: path, call: call) else { return try body() }
        defer { state.end(token) }
        return try body()
    }

    private static let state = WatchState()
}

/// The calls in progress and the thread that checks them.
// @unchecked: every stored property is read and written under `lock`.
private final class WatchState: @unchecked Sendable {
    private struct Call {
        let path: String
        let call: String
        let started: DispatchTime
    }

    private let lock = NSLock()
    private var limit: Double?
    private var handler: (@Sendable (PluginWatchdog.Overrun) -> Void)?
    private var calls: [UInt64: Call] = [:]
    private var nextToken: UInt64 = 0
    private var reported: Set<UInt64> = []
    private var thread: Thread?

    func install(limit: Double, onOverrun: @escaping @Sendable (PluginWatchdog.Overrun) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.limit = limit
        handler = onOverrun
    }

    func begin(path: String, call: String) -> UInt64? {
        lock.lock()
        defer { lock.unlock() }
        guard limit != nil else { return nil }
        if thread == nil {
            // Started at the first watched call: a process that loads no plugin has no watchdog.
            let checker = Thread { [self] in run() }
            checker.name = "plugin watchdog"
            thread = checker
            checker.start()
        }
        nextToken += 1
        calls[nextToken] = Call(path: path, call: call, started: .now())
        return nextToken
    }

    func end(_ token: UInt64) {
        lock.lock()
        calls.removeValue(forKey: token)
        reported.remove(token)
        lock.unlock()
    }

    /// The checker's loop, on its own thread: wakes ten times a deadline (at most every 100 ms).
    private func run() {
        while true {
            lock.lock()
            let limit = self.limit ?? 1
            let now = DispatchTime.now()
            var overruns: [PluginWatchdog.Overrun] = []
            for (token, call) in calls where !reported.contains(token)
                && Double(now.uptimeNanoseconds &- call.started.uptimeNanoseconds) / 1e9 > limit {
                reported.insert(token)
                overruns.append(PluginWatchdog.Overrun(path: call.path, call: call.call, limit: limit))
            }
            let handler = self.handler
            lock.unlock()
            for overrun in overruns { handler?(overrun) }
            // off-pool: the watchdog's own thread, started above; never a cooperative one.
            Thread.sleep(forTimeInterval: min(0.1, limit / 10))
        }
    }
}
