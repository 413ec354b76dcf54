import Foundation
import HTTPExchange
import StrategyKit
import SyncModel

/// HTTP: a sync server (`engine serve`, the server's own release) over its JSON API, version 1:
///
/// - `GET {URL}/v1/registers` answers the user's registers as a sync document (the wire
///   format, `schemas/sync-wire.schema.json`);
/// - `POST {URL}/v1/registers` sends this device's state as a sync document; the server merges
///   each write by the register's total order, so a stale write never wins, and answers 2xx;
/// - every request carries `Authorization: Bearer TOKEN`, the token read from the environment
///   variable `TokenVariable` (never from a file or the command line);
/// - an error is a 4xx or 5xx with `{"error": "message"}`.
///
/// A server that cannot be reached (refused, timed out) is offline: positions wait in the
/// outbox. Any other failure, a refused token included, is an error with the server's message,
/// which the round does not retry. Requests go through the process's HTTP client
/// (`HTTPExchanges`: AsyncHTTPClient on the command line).
public struct HTTPTransport: SyncTransport, DeclaredStrategy {
    public static let urlParameter = Parameter<String>(required: "URL", help: "The sync server's base URL, e.g. http://127.0.0.1:8080.")
    public static let tokenVariableParameter = Parameter<String>(
        "TokenVariable", help: "The environment variable that holds the bearer token.", default: "ENGINE_SYNC_TOKEN")
    public static let timeoutParameter = Parameter<Double>(
        "Timeout", help: "Seconds one request may take.", default: 15, above: 0)
    public static let pollIntervalParameter = Parameter<Double>(
        "PollInterval", help: "Seconds between two rounds when nothing local has changed.", default: 60, above: 0)

    public static let type = StrategyType(
        name: "HTTP", kind: .transport,
        summary: "A sync server's JSON API: GET and POST /v1/registers with a bearer token from the environment.",
        parameters: [urlParameter.declaration, tokenVariableParameter.declaration, timeoutParameter.declaration, pollIntervalParameter.declaration]
    ) { options in
        guard let url = URL(string: options(urlParameter)), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw StrategyError("URL must be an http or https URL with a host, found \(options(urlParameter))")
        }
        return .transport(HTTPTransport(base: url, tokenVariable: options(tokenVariableParameter), timeout: options(timeoutParameter),
                                        pollInterval: options(pollIntervalParameter)))
    }

    public let base: URL
    public let tokenVariable: String
    public let timeout: Double
    public let pollInterval: Double?
    let environment: @Sendable () -> [String: String]
    /// The HTTP client; the process's (`HTTPExchanges.shared`) when nil, read at each request.
    let client: (any HTTPExchange)?

    var exchange: any HTTPExchange { client ?? HTTPExchanges.shared }

    public init(base: URL, tokenVariable: String = tokenVariableParameter.defaultValue, timeout: Double = timeoutParameter.defaultValue,
                pollInterval: Double? = pollIntervalParameter.defaultValue,
                environment: @escaping @Sendable () -> [String: String] = { ProcessInfo.processInfo.environment },
                exchange: (any HTTPExchange)? = nil) {
        client = exchange
        self.base = base
        self.tokenVariable = tokenVariable
        self.timeout = timeout
        self.pollInterval = pollInterval
        self.environment = environment
    }

    var endpoint: URL { base.appendingPathComponent("v1").appendingPathComponent("registers") }

    public func pull(device: String) throws(SyncTransportError) -> SyncPull {
        let body = try send(method: "GET", body: nil)
        do {
            let document = try SyncWireCoding.decode(body)
            return SyncPull(records: document.records, devices: Array(Set(document.records.map(\.device)).subtracting([device])).sorted())
        } catch {
            throw SyncTransportError(.failed, "\(endpoint.absoluteString): the answer is not a sync document: \(error.description)")
        }
    }

    public func push(_ records: [PositionRecord], device: String) throws(SyncTransportError) {
        _ = try send(method: "POST", body: SyncWireCoding.encode(SyncWireCoding.Document(device: device, records: records)))
    }

    /// One request; its body on 2xx.
    private func send(method: String, body: Data?) throws(SyncTransportError) -> Data {
        guard let token = environment()[tokenVariable], !token.isEmpty else {
            throw SyncTransportError(.failed, "no sync token: set the environment variable \(tokenVariable)")
        }
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPExchangeRequest(method: method, url: endpoint, headers: headers, body: body, timeout: timeout,
                                          maxBodyBytes: Self.maxAnswerBytes)
        let url = endpoint.absoluteString
        let answer: HTTPExchangeAnswer
        let exchange = self.exchange
        switch BlockingExchange.wait({ () async throws(HTTPExchangeError) -> HTTPExchangeAnswer in try await exchange.send(request) }) {
        case .success(let value):
            answer = value
        case .failure(let error):
            throw error.isUnreachable ? SyncTransportError(.unreachable, "\(url): cannot be reached: \(error.message)")
                : SyncTransportError(.failed, "\(url): \(error.message)")
        }
        guard (200...299).contains(answer.status) else {
            let message = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? String
            throw SyncTransportError(.failed, "\(url): HTTP \(answer.status)\(message.map { ": \($0)" } ?? "")")
        }
        return answer.body
    }

    /// The largest answer read: a user's whole state.
    static let maxAnswerBytes = 64 << 20
}
