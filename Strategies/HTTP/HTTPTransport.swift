import Foundation
import TimelineEngineHTTPExchange
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineSyncWire
import TimelineEngineValueTree

/// HTTP: a sync server (`engine serve`, the server's own release) over its JSON API, version 2:
///
/// - `GET {URL}/v1/registers` answers the user's heads as a sync document (the wire format,
///   `schemas/sync-wire.schema.json`), with the server's change counter as `cursor`;
/// - `GET {URL}/v1/registers?since=CURSOR&wait=SECONDS` waits until a head changes after
///   `CURSOR` (or `SECONDS` pass) and answers the heads that did: the change stream long-polls
///   this, so an open device hears another's save as soon as the server has it;
/// - `POST {URL}/v1/registers` sends this device's heads as a sync document; the server keeps
///   each device's latest per register, and answers 2xx;
/// - every request carries `Authorization: Bearer TOKEN`, the token read from the environment
///   variable `TokenVariable` (never from a file or the command line);
/// - an error is a 4xx or 5xx with `{"error": "message"}`.
///
/// A server that cannot be reached (refused, timed out) is offline: positions wait in the
/// outbox, and the change stream reconnects after the network policy's delay and reads
/// everything again, so nothing is missed. Any other failure, a refused
/// token included, is an error with the server's message. Requests go through the process's
/// HTTP client (`HTTPExchanges`: AsyncHTTPClient on the command line) and block no thread.
/// Sealed end to end (`sealing(with:)`), it sends the heads sealed, and the server keeps and
/// answers them so: it never reads a position (docs/SERVER.md, "What the server can read").
public struct HTTPTransport: SealableTransport, DeclaredStrategy {
    public static let urlParameter = Parameter<String>(required: "URL", help: "The sync server's base URL, e.g. http://127.0.0.1:8080.")
    public static let tokenVariableParameter = Parameter<String>(
        "TokenVariable", help: "The environment variable that holds the bearer token.", default: "ENGINE_SYNC_TOKEN",
        pattern: TextPattern.environmentVariable)
    public static let timeoutParameter = Parameter<Double>(
        "Timeout", help: "Seconds one request may take (a long-poll: this beyond its wait).", default: 15, range: 0.001...3600)
    public static let pollIntervalParameter = Parameter<Double>(
        "PollInterval", help: "Seconds a long-poll asks the server to wait for a change before it asks again.", default: 25, range: 0.01...3600)

    public static let type = StrategyType(
        name: "HTTP", kind: .transport,
        summary: "A sync server's JSON API: GET and POST /v1/registers with a bearer token from the environment; long-polls for changes.",
        parameters: [urlParameter.declaration, tokenVariableParameter.declaration, timeoutParameter.declaration, pollIntervalParameter.declaration],
        examples: [TransportScenario.everyDevicesLatestHead]
    ) { options in
        guard let url = URL(string: options(urlParameter)), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw StrategyError("URL must be an http or https URL with a host, found \(options(urlParameter))")
        }
        return .transport(
            HTTPTransport(
                base: url, tokenVariable: options(tokenVariableParameter), timeout: options(timeoutParameter),
                pollInterval: options(pollIntervalParameter)))
    }

    public let base: URL
    public let tokenVariable: String
    public let timeout: Double
    /// The long-poll's wait.
    public let pollInterval: Double?
    let environment: @Sendable () -> [String: String]
    /// The HTTP client; the process's (`HTTPExchanges.shared`) when nil, read at each request.
    let client: (any HTTPExchange)?

    var exchange: any HTTPExchange { client ?? HTTPExchanges.shared }
    /// What seals the heads sent and opens those read; nil: in the clear.
    public private(set) var sealer: (any RecordSealing)?

    public func sealing(with sealing: any RecordSealing) -> any SyncTransport {
        var sealed = self
        sealed.sealer = sealing
        return sealed
    }

    public init(
        base: URL, tokenVariable: String = tokenVariableParameter.defaultValue, timeout: Double = timeoutParameter.defaultValue,
        pollInterval: Double? = pollIntervalParameter.defaultValue,
        environment: @escaping @Sendable () -> [String: String] = { ProcessInfo.processInfo.environment },
        exchange: (any HTTPExchange)? = nil
    ) {
        client = exchange
        self.base = base
        self.tokenVariable = tokenVariable
        self.timeout = timeout
        self.pollInterval = pollInterval
        self.environment = environment
    }

    var endpoint: URL { base.appendingPathComponent("v1").appendingPathComponent("registers") }

    public func pull(device: String) async throws(SyncTransportError) -> SyncPull {
        try await read(device: device, since: nil).pull.sealingChecked(by: sealer)
    }

    public func push(_ publication: SyncPublication) async throws(SyncTransportError) {
        let body = try publication.wireDocument(sealing: sealer)
        _ = try await send(method: "POST", url: endpoint, body: body, timeout: timeout)
    }

    /// Everything at once, then, by long-polls, what changed since the last answer's cursor.
    /// After a failure it waits as `watch` says and reads everything again; a server whose
    /// counter went back (a new database) is read whole again too.
    public func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        AsyncStream { continuation in
            let task = Task {
                var cursor: Int?
                var failures = 0
                while !Task.isCancelled {
                    do throws(SyncTransportError) {
                        let answer = try await read(device: watch.device, since: cursor)
                        if let since = cursor, let now = answer.cursor, now < since {
                            cursor = nil
                            continue
                        }
                        // Everything the first time and after a reconnection; in between, what changed.
                        // Sealed heads no key here opens are said, as a pull says them.
                        let pull = try answer.pull.sealingChecked(by: sealer)
                        if cursor == nil || !pull.records.isEmpty { continuation.yield(pull) }
                        if failures > 0 { watch.log("\(endpoint.absoluteString): reconnected") }
                        failures = 0
                        cursor = answer.cursor ?? cursor
                    } catch {
                        if Task.isCancelled { break }
                        failures += 1
                        watch.log(error.description)
                        // Reconnect with a whole read: it answers at once, and misses nothing
                        // even if the server's database was replaced meanwhile.
                        cursor = nil
                        do { try await watch.sleep(watch.retryDelay(failures)) } catch { break }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A GET: everything (`since` nil), or a long-poll for what changed after `since`.
    func read(device: String, since: Int?) async throws(SyncTransportError) -> (pull: SyncPull, cursor: Int?) {
        var url = endpoint
        var seconds = timeout
        if let since {
            let wait = pollInterval ?? Self.pollIntervalParameter.defaultValue
            var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "since", value: String(since)), URLQueryItem(name: "wait", value: String(wait))]
            url = components.url!
            seconds += wait
        }
        let body = try await send(method: "GET", url: url, body: nil, timeout: seconds)
        do {
            let document = try SyncWireCoding.decode(body)
            var pull = SyncPull()
            pull.take(document, from: endpoint.absoluteString, opening: sealer)
            pull.devices = Array(Set(pull.records.map(\.device)).subtracting([device])).sorted()
            return (pull, document.cursor)
        } catch {
            throw SyncTransportError(.failed, "\(endpoint.absoluteString): the answer is not a sync document: \(error.description)")
        }
    }

    /// One request; its body on 2xx.
    private func send(method: String, url: URL, body: Data?, timeout: Double) async throws(SyncTransportError) -> Data {
        guard let token = environment()[tokenVariable], !token.isEmpty else {
            throw SyncTransportError(.failed, "no sync token: set the environment variable \(tokenVariable)")
        }
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPExchangeRequest(
            method: method, url: url, headers: headers, body: body, timeout: timeout, maxBodyBytes: Self.maxAnswerBytes,
            followsOtherOrigins: false)
        let name = endpoint.absoluteString
        let answer: HTTPExchangeAnswer
        do {
            answer = try await exchange.send(request)
        } catch {
            throw error.isUnreachable
                ? SyncTransportError(.unreachable, "\(name): cannot be reached: \(error.message)")
                : SyncTransportError(.failed, "\(name): \(error.message)")
        }
        guard (200...299).contains(answer.status) else {
            let message = ((try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? String).map {
                TerminalText.escaped($0)
            }
            throw SyncTransportError(.failed, "\(name): HTTP \(answer.status)\(message.map { ": \($0)" } ?? "")")
        }
        return answer.body
    }

    /// The largest answer read: a user's whole state.
    static let maxAnswerBytes = 64 << 20
}
