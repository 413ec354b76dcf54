import Foundation
import TimelineEngineSupport

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
private final class WatchState: Sendable {
    private struct Call {
        let path: String
        let call: String
        let started: DispatchTime
    }

    private struct Watched {
        var limit: Double?
        var handler: (@Sendable (PluginWatchdog.Overrun) -> Void)?
        var calls: [UInt64: Call] = [:]
        var nextToken: UInt64 = 0
        var reported: Set<UInt64> = []
        var started = false
    }

    private let state = Locked(Watched())

    func install(limit: Double, onOverrun: @escaping @Sendable (PluginWatchdog.Overrun) -> Void) {
        state.withLock {
            $0.limit = limit
            $0.handler = onOverrun
        }
    }

    func begin(path: String, call: String) -> UInt64? {
        let (token, start) = state.withLock { state -> (UInt64?, Bool) in
            guard state.limit != nil else { return (nil, false) }
            // Started at the first watched call: a process that loads no plugin has no watchdog.
            let start = !state.started
            state.started = true
            state.nextToken += 1
            state.calls[state.nextToken] = Call(path: path, call: call, started: .now())
            return (state.nextToken, start)
        }
        if start {
            let checker = Thread { [self] in run() }
            checker.name = "plugin watchdog"
            checker.start()
        }
        return token
    }

    func end(_ token: UInt64) {
        state.withLock {
            $0.calls.removeValue(forKey: token)
            $0.reported.remove(token)
        }
    }

    /// The checker's loop, on its own thread: wakes ten times a deadline (at most every 100 ms).
    private func run() {
        while true {
            let (limit, overruns, handler) = state.withLock {
                state -> (Double, [PluginWatchdog.Overrun], (@Sendable (PluginWatchdog.Overrun) -> Void)?) in
                let limit = state.limit ?? 1
                let now = DispatchTime.now()
                var overruns: [PluginWatchdog.Overrun] = []
                for (token, call) in state.calls
                where !state.reported.contains(token)
                    && Double(now.uptimeNanoseconds &- call.started.uptimeNanoseconds) / 1e9 > limit
                {
                    state.reported.insert(token)
                    overruns.append(PluginWatchdog.Overrun(path: call.path, call: call.call, limit: limit))
                }
                return (limit, overruns, state.handler)
            }
            for overrun in overruns { handler?(overrun) }
            // off-pool: the watchdog's own thread, started above; never a cooperative one.
            Thread.sleep(forTimeInterval: min(0.1, limit / 10))
        }
    }
}
