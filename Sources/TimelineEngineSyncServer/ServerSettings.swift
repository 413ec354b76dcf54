#if SyncServer
import Foundation

/// How `engine serve` runs: where it listens and what it accepts.
public struct ServerSettings: Sendable {
    public var host: String
    public var port: Int
    /// The largest request body read, in bytes; a larger one gets 413.
    public var maxBodyBytes: Int
    /// The most writes one request may carry.
    public var maxRecords: Int
    /// The most heads the server keeps for one user (each device's latest write per register,
    /// so also the most registers); a write that would store more gets 403, nothing stored.
    public var maxHeadsPerUser: Int
    /// The longest a long-poll waits, in seconds (`wait` is capped to it).
    public var maxWait: Double
    /// Seconds a connection may stay silent, reading or writing, before it is closed.
    public var idleTimeout: Double
    /// Seconds after its last write a device's heads are kept; nil keeps them for good.
    public var retention: Double?
    /// Seconds between two retention passes.
    public var retentionSweepInterval: Double

    public static let defaultPort = 8080
    /// The default bound on a user's heads: far more than a reader's devices write to every
    /// timeline they keep a place in, far fewer than a device can take in at its first round.
    public static let defaultMaxHeadsPerUser = 10_000
    /// The default retention: 180 days.
    public static let defaultRetention: Double = 180 * 86_400

    public init(
        host: String = "127.0.0.1", port: Int = defaultPort, maxBodyBytes: Int = 4 << 20,
        maxRecords: Int = 10_000, maxHeadsPerUser: Int = defaultMaxHeadsPerUser, maxWait: Double = 30, idleTimeout: Double = 60,
        retention: Double? = defaultRetention,
        retentionSweepInterval: Double = 3_600
    ) {
        self.retention = retention
        self.retentionSweepInterval = retentionSweepInterval
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.maxRecords = maxRecords
        self.maxHeadsPerUser = maxHeadsPerUser
        self.maxWait = maxWait
        self.idleTimeout = max(idleTimeout, maxWait + 5)
    }

    /// Whether `host` is a loopback address, the only kind `engine serve` binds without
    /// `--allow-insecure-http`.
    /// `localhost`, `::1` (bracketed or not) or an IPv4 address in 127.0.0.0/8 written as four
    /// decimal numbers; a host name that merely begins with `127.` is none of these.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy { $0.isASCII && $0.isNumber } && (Int(part) ?? 256) <= 255
        }
    }
}
#endif
