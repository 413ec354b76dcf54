#if SyncServer
import ArgumentParser
import Foundation
import TimelineEngineSyncServer

/// `engine serve [--store PATH | --database URL] [--listen HOST:PORT]`: the sync server.
struct ServeRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the sync server of the HTTP transport (docs/SERVER.md).",
        discussion: """
            Serves GET and POST /v1/registers (the sync wire format, with long-polls), \
            GET /health and GET /metrics. Every /v1 request needs a bearer token made with \
            `engine serve token create`, and sees only its user's registers. The server keeps \
            each device's latest write per register (its head), replaced in the database only \
            by a later write of that device, so a stale write never wins; devices resolve the \
            register's value from the heads with their own merge policy.

            The server speaks plain HTTP: put a proxy that terminates TLS in front of it. It \
            listens on 127.0.0.1:8080 by default, and refuses another address than loopback \
            without --allow-insecure-http. SIGTERM or SIGINT stops it gracefully: requests in \
            flight finish and long-polls are answered.

            Exit codes: 0 stopped by a signal, 1 the database failed, 2 bad usage.

            Examples:
              engine serve --store server.sqlite
              engine serve --database postgres://sync@db/sync \\
                --listen 0.0.0.0:8080 --allow-insecure-http
            """
    )

    @OptionGroup var storage: ServerStorageOptions

    @Option(name: .long, help: "The address to listen on, HOST:PORT (port 0: any free port).")
    var listen = "127.0.0.1:\(ServerSettings.defaultPort)"

    @Flag(name: .long, help: "Listen on an address other than loopback, in plain HTTP (behind a proxy that terminates TLS).")
    var allowInsecureHttp = false

    @Option(name: .long, help: "The largest request body, in bytes.")
    var maxBodyBytes = 4 << 20

    @Option(name: .long, help: "The most heads (a device's latest write to a register) kept for one user.")
    var maxHeadsPerUser = ServerSettings.defaultMaxHeadsPerUser

    @Option(name: .long, help: "The longest a long-poll waits, in seconds.")
    var maxWait = 30.0

    @Option(name: .long, help: "Days a device's heads are kept after its last write (0: for good).")
    var retentionDays = ServerSettings.defaultRetention / 86_400

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard Self.address(listen) != nil else {
            throw ValidationError("--listen must be HOST:PORT with a port from 0 to 65535, found \(listen)")
        }
        guard maxBodyBytes >= 1024 else { throw ValidationError("--max-body-bytes must be at least 1024, got \(maxBodyBytes)") }
        guard maxHeadsPerUser >= 1 else { throw ValidationError("--max-heads-per-user must be at least 1, got \(maxHeadsPerUser)") }
        guard maxWait >= 0, maxWait <= 3600 else { throw ValidationError("--max-wait must be from 0 to 3600 seconds, got \(maxWait)") }
        guard retentionDays.isFinite, retentionDays >= 0, retentionDays <= 36_500 else {
            throw ValidationError("--retention-days must be from 0 (keep for good) to 36500, got \(retentionDays)")
        }
    }

    /// `HOST:PORT`, with `[::1]:PORT` for IPv6.
    static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        return (host, port)
    }

    func run() async throws {
        let (host, port) = Self.address(listen)!
        guard ServerSettings.isLoopback(host) || allowInsecureHttp else {
            throw CommandFailure(
                .usage,
                """
                error: \(host) is not a loopback address: the server speaks plain HTTP, so it listens elsewhere only behind a \
                proxy that terminates TLS; add --allow-insecure-http to do so
                """)
        }
        let logger = logging.logger(.sync)
        let settings = ServerSettings(
            host: host, port: port, maxBodyBytes: maxBodyBytes, maxHeadsPerUser: maxHeadsPerUser, maxWait: maxWait,
            retention: retentionDays > 0 ? retentionDays * 86_400 : nil)
        try await storage.with(logger: logger, serving: true) { storage in
            let server = SyncServer(storage: storage, settings: settings, logger: logger)
            do {
                try await server.run { port in
                    logger.notice("listening", metadata: ["url": "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"])
                }
            } catch {
                throw CommandFailure(.failed, "error: the server stopped: \(error)")
            }
            logger.notice("stopped")
        }
    }
}
#endif
