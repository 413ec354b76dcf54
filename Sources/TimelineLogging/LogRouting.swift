import Foundation
import Logging

/// Where the records of a bootstrapped process go, and at which levels: one value the
/// handlers read at every call, so that a change (a configuration loaded or reloaded, the
/// command line's `--verbose`) reaches every logger already made.
// @unchecked: `levels` and `sinks` are read and written under `lock` only.
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

    /// The levels in force.
    public var levels: LogLevels {
        lock.lock()
        defer { lock.unlock() }
        return currentLevels
    }

    /// The sinks in force.
    public var sinks: [any LogSink] {
        lock.lock()
        defer { lock.unlock() }
        return currentSinks
    }

    /// The command line's override, applied to every configuration's levels.
    public var verbosity: Verbosity {
        get {
            lock.lock()
            defer { lock.unlock() }
            return currentVerbosity
        }
        set {
            lock.lock()
            currentVerbosity = newValue
            lock.unlock()
        }
    }

    /// True once the process asked its configuration to set the levels and sinks
    /// (`TimelineLogging.bootstrap(configuration:)`): a reload then sets them again.
    public var followsConfiguration: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return following
        }
        set {
            lock.lock()
            following = newValue
            lock.unlock()
        }
    }

    /// The level for a swift-log label.
    public func level(forLabel label: String) -> Logger.Level {
        lock.lock()
        defer { lock.unlock() }
        return currentLevels.level(forLabel: label)
    }

    /// Replaces the levels and the sinks at once: a record is written with the old pair or
    /// the new, never a mix.
    public func update(levels: LogLevels, sinks: [any LogSink]) {
        lock.lock()
        currentLevels = levels
        currentSinks = sinks
        lock.unlock()
    }

    /// Replaces the levels and keeps the sinks.
    public func update(levels: LogLevels) {
        lock.lock()
        currentLevels = levels
        lock.unlock()
    }
}
