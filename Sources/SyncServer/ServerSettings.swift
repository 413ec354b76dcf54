import Foundation

/// How `engine serve` runs: where it listens and what it accepts.
public struct ServerSettings: Sendable {
    public var host: String
    public var port: Int
    /// The largest request body read, in bytes; a larger one gets 413.
    public var maxBodyBytes: Int
    /// The most writes one request may carry.
    public var maxRecords: Int
    /// The longest a long-poll waits, in seconds (`wait` is capped to it).
    public var maxWait: Double
    /// Seconds a connection may stay silent, reading or writing, before it is closed.
    public var idleTimeout: Double

    public static let defaultPort = 8080

    public init(host: String = "127.0.0.1", port: Int = defaultPort, maxBodyBytes: Int = 4 << 20,
                maxRecords: Int = 10_000, maxWait: Double = 30, idleTimeout: Double = 60) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.maxRecords = maxRecords
        self.maxWait = maxWait
        self.idleTimeout = max(idleTimeout, maxWait + 5)
    }

    /// Whether `host` is a loopback address, the only kind `engine serve` binds without
    /// `--allow-insecure-http`.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
