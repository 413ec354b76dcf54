import Foundation
import TimelineEngineValueTree

/// Where positions travel between devices. A transport publishes this device's heads and reads
/// what the others published; merging heads makes delivery order, duplicates and delays
/// harmless. Every call is asynchronous and blocks no thread: network transports await their
/// HTTP client, and file transports do their I/O off Swift's cooperative threads.
public protocol SyncTransport: Sendable {
    /// The registered name.
    var name: String { get }
    /// What the other devices published, and a warning for each source that could not be read
    /// (a half-copied file, say); an unreachable transport throws.
    func pull(device: String) async throws(SyncTransportError) -> SyncPull
    /// Publishes this device's heads (`SyncPublication.own`); a transport that carries only a
    /// register's value, as Mastodon's markers do, resolves it from the state.
    func push(_ publication: SyncPublication) async throws(SyncTransportError)
    /// What other devices write, as it arrives: each element is a pull's worth of writes (the
    /// first, everything there is). The stream reconnects by itself after failures, waiting as
    /// `watch` says, and pulls everything again when it does, so that nothing written while it
    /// was away is missed; it ends when the consuming task is cancelled. By default it polls
    /// every `pollInterval` seconds.
    func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull>
    /// Seconds between two polls when nothing local changed; nil for a transport with nothing
    /// to poll.
    var pollInterval: Double? { get }
    /// What this transport cannot carry of a position, and so of the sync promises, said once to
    /// the user where it is used (`engine sync run` and `watch` print it as a note); nil when it
    /// carries the heads whole.
    var limitations: String? { get }
}

extension SyncTransport {
    public var pollInterval: Double? { nil }
    public var limitations: String? { nil }

    public func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        guard let interval = pollInterval else { return AsyncStream { $0.finish() } }
        return ChangeWatch.polling(every: interval, watch) { () async throws(SyncTransportError) -> SyncPull in
            try await pull(device: watch.device)
        }
    }
}

/// What a round publishes: the whole state, as this device knows it, and the merge policy its
/// values are read with.
public struct SyncPublication: Sendable {
    public var device: String
    public var state: ReplicaState
    public var policy: any MergePolicy

    public init(device: String, state: ReplicaState, policy: any MergePolicy) {
        self.device = device
        self.state = state
        self.policy = policy
    }

    /// This device's own heads: what a device publishes where every device reads every other's
    /// publication (a shared folder, a server, a key-value store).
    public var own: [PositionRecord] {
        state.records.filter { $0.device == device }
    }
}

/// How a change stream waits and says what it does: the coordinator's clock (virtual in tests),
/// its network policy's delays between reconnections, and its log.
public struct ChangeWatch: Sendable {
    public var device: String
    /// Sleeps `seconds` on the coordinator's clock; throws when the task is cancelled.
    public var sleep: @Sendable (_ seconds: Double) async throws -> Void
    /// Seconds to wait before trying again after `attempt` failures in a row (from 1).
    public var retryDelay: @Sendable (_ attempt: Int) -> Double
    /// Notes what the stream met (a failure, a reconnection).
    public var log: @Sendable (_ message: String) -> Void

    public init(
        device: String, sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) },
        retryDelay: @escaping @Sendable (Int) -> Double = { min(60, Double(1 << min($0, 6))) },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.device = device
        self.sleep = sleep
        self.retryDelay = retryDelay
        self.log = log
    }

    /// A stream that calls `pull` every `interval` seconds (the first at once), yielding what
    /// it brings; after a failure it waits `retryDelay` instead, and logs the failure.
    public static func polling(
        every interval: Double, _ watch: ChangeWatch,
        _ pull: @escaping @Sendable () async throws(SyncTransportError) -> SyncPull
    ) -> AsyncStream<SyncPull> {
        repeating(watch, next: { try await watch.sleep(interval) }, pull)
    }

    /// A stream that calls `pull` (the first time at once), yielding what it brings, then
    /// waits with `next` before calling it again; after a failure it logs it and waits
    /// `retryDelay` instead. It ends when it is no longer read or a wait throws (cancelled);
    /// `onTermination` then releases what the transport set up for it.
    public static func repeating(
        _ watch: ChangeWatch, next: @escaping @Sendable () async throws -> Void,
        onTermination: @escaping @Sendable () -> Void = {},
        _ pull: @escaping @Sendable () async throws(SyncTransportError) -> SyncPull
    ) -> AsyncStream<SyncPull> {
        AsyncStream { continuation in
            let task = Task {
                var failures = 0
                while !Task.isCancelled {
                    do throws(SyncTransportError) {
                        continuation.yield(try await pull())
                        failures = 0
                    } catch {
                        failures += 1
                        watch.log(error.description)
                    }
                    do {
                        if failures == 0 { try await next() } else { try await watch.sleep(watch.retryDelay(failures)) }
                    } catch {
                        break
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in
                task.cancel()
                onTermination()
            }
        }
    }
}

/// What a pull brought.
public struct SyncPull: Sendable {
    public var records: [PositionRecord]
    /// One line per source that was skipped, naming it.
    public var warnings: [String]
    /// The devices heard from.
    public var devices: [String]
    /// How many heads sealed end to end were opened.
    public var sealedOpened = 0
    /// The heads sealed end to end that were not opened, counted by the id of their key.
    public var sealedUnopened: [String: Int] = [:]

    public init(records: [PositionRecord] = [], warnings: [String] = [], devices: [String] = []) {
        self.records = records
        self.warnings = warnings
        self.devices = devices
    }
}

/// A transport that cannot be used now: unreachable (offline), or failing.
public struct SyncTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the transport could not be reached (the round waits and keeps the outbox) or failed.
    public enum Kind: Sendable, Equatable {
        /// The folder or server cannot be reached: positions wait in the outbox.
        case unreachable
        /// It was reached and failed.
        case failed
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
