import ArgumentParser
import TimelineEngineKit

/// An error a command stops with: its message, printed on standard error as it is, and its
/// kind, which alone decides the exit code. `Kind.exitCode` is the one place that maps them.
/// A command that has printed several diagnostics itself (`validate`, `plist lint`) ends with
/// the `EngineExit` code alone.
struct CommandFailure: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// Some input was read and found invalid.
        case invalidInput
        /// The work could not be done: a refresh failed, a store could not be written.
        case failed
        /// A file could not be read or written, does not exist, or is not a file.
        case unreadable
        /// The command line was wrong.
        case usage
        /// The sync transport could not be reached.
        case offline

        /// The documented exit codes: 1 invalid input or a failure, 2 an unreadable file or bad
        /// usage, 3 a sync transport that cannot be reached.
        var exitCode: ExitCode {
            switch self {
            case .invalidInput, .failed: return EngineExit.invalid
            case .unreadable, .usage: return EngineExit.usage
            case .offline: return EngineExit.offline
            }
        }
    }

    let kind: Kind
    let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A store that cannot be used, with the kind its problem has on the command line.
    init(_ error: StoreError) {
        switch error.kind {
        case .missing, .unusablePath: kind = .unreadable
        case .notAStore, .incompatible: kind = .invalidInput
        case .failed: kind = .failed
        }
        message = error.description
    }

    var description: String { message }
}
