import Foundation
import Logging

/// Where the records of a bootstrapped process go, and at which levels: one value the
/// handlers read at every call, so that a change (a configuration loaded or reloaded, the
/// command line's `--verbose`) reaches every logger already made.
// @unchecked: every stored property is read and written under `lock` only (`locked`).
public final class LogRouting: @unchecked Sendable {
    private let lock = NSLock()
    private var currentLevels: LogLevels
    private var currentSinks: [any LogSink]
    private var currentVerbosity = Verbosity()
    private var following = false

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
        currentLevels = levels
        currentSinks = sinks
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// The levels in force.
    public var levels: LogLevels { locked { currentLevels } }

    /// The sinks in force.
    public var sinks: [any LogSink] { locked { currentSinks } }

    /// The command line's override, applied to every configuration's levels.
    public var verbosity: Verbosity {
        get { locked { currentVerbosity } }
        set { locked { currentVerbosity = newValue } }
    }

    /// True once the process asked its configuration to set the levels and sinks
    /// (`TimelineLogging.bootstrap(configuration:)`): a reload then sets them again.
    public var followsConfiguration: Bool {
        get { locked { following } }
        set { locked { following = newValue } }
    }

    /// The level for a swift-log label.
    public func level(forLabel label: String) -> Logger.Level {
        locked { currentLevels.level(forLabel: label) }
    }

    /// Replaces the levels and the sinks at once: a record is written with the old pair or
    /// the new, never a mix.
    public func update(levels: LogLevels, sinks: [any LogSink]) {
        locked {
            currentLevels = levels
            currentSinks = sinks
        }
    }

    /// Replaces the levels and keeps the sinks.
    public func update(levels: LogLevels) {
        locked { currentLevels = levels }
    }
}
