import Foundation
import Logging
import TimelineEngineSupport

/// Where the records of a bootstrapped process go, and at which levels: one value the
/// handlers read at every call, so that a change (a configuration loaded or reloaded, the
/// command line's `--verbose`) reaches every logger already made.
public final class LogRouting: Sendable {
    private struct State {
        var levels: LogLevels
        var sinks: [any LogSink]
        var verbosity = Verbosity()
        var following = false
    }

    private let state: Locked<State>

    /// The command line's `--verbose` and `--quiet`: they win over the levels a configuration
    /// asks for.
    public struct Verbosity: Sendable, Equatable {
        public var verbose: Bool
        public var quiet: Bool

        public init(verbose: Bool = false, quiet: Bool = false) {
            self.verbose = verbose
            self.quiet = quiet
        }
    }

    public init(levels: LogLevels = LogLevels(), sinks: [any LogSink] = [StderrLogSink()]) {
        state = Locked(State(levels: levels, sinks: sinks))
    }

    /// The levels in force.
    public var levels: LogLevels { state.withLock { $0.levels } }

    /// The sinks in force.
    public var sinks: [any LogSink] { state.withLock { $0.sinks } }

    /// The command line's override, applied to every configuration's levels.
    public var verbosity: Verbosity {
        get { state.withLock { $0.verbosity } }
        set { state.withLock { $0.verbosity = newValue } }
    }

    /// True once the process asked its configuration to set the levels and sinks
    /// (`TimelineLogging.bootstrap(configuration:)`): a reload then sets them again.
    public var followsConfiguration: Bool {
        get { state.withLock { $0.following } }
        set { state.withLock { $0.following = newValue } }
    }

    /// The level for a swift-log label.
    public func level(forLabel label: String) -> Logger.Level {
        state.withLock { $0.levels.level(forLabel: label) }
    }

    /// Replaces the levels and the sinks at once: a record is written with the old pair or
    /// the new, never a mix.
    public func update(levels: LogLevels, sinks: [any LogSink]) {
        state.withLock {
            $0.levels = levels
            $0.sinks = sinks
        }
    }

    /// Replaces the levels and keeps the sinks.
    public func update(levels: LogLevels) {
        state.withLock { $0.levels = levels }
    }
}
