import Dispatch
import Foundation
import TimelineEngineKit

/// What a timeline server says in its status line and headers: `Retry-After` (seconds or an
/// HTTP date), `RateLimit-Remaining`/`-Reset`, `X-RateLimit-*` (ISO dates), `Content-Type`,
/// `Content-Length` and `Content-Encoding`, with hostile values (huge, negative, `inf`, `1e300`,
/// dates out of range, control characters), answered to a refresh and to a reach's lookup and
/// page. Nothing may trap, no message may carry a control character, and no wait may exceed the
/// fetch's deadline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Array(UnsafeRawBufferPointer(start: bytes, count: count))
    guard let first = data.first else { return 0 }
    let statuses = [200, 404, 429, 503, 500, 301, 401, 408, 204, 299]
    let status = statuses[Int(first) % statuses.count]
    let names = [
        "Retry-After", "RateLimit-Remaining", "RateLimit-Reset", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Content-Type",
        "Content-Length", "Content-Encoding", "RateLimit-Limit", "Location",
    ]
    var headers: [(name: String, value: String)] = []
    var body = Data()
    var index = 1
    while index < data.count {
        let selector = data[index]
        index += 1
        if selector == 0xFF {
            body = Data(data[index...])
            break
        }
        var value: [UInt8] = []
        while index < data.count, data[index] != 0x0A {
            value.append(data[index])
            index += 1
        }
        index += 1
        headers.append((names[Int(selector) % names.count], String(decoding: value, as: UTF8.self)))
    }
    if !headers.contains(where: { $0.name == "Content-Type" }) { headers.append(("Content-Type", "application/json")) }
    if body.isEmpty { body = Data(#"[{"id":"1","created_at":"2026-08-01T12:00:00.000Z","content":"<p>one</p>","account":{"acct":"a"}}]"#.utf8) }
    let exchange = FixedExchange(answer: HTTPExchangeAnswer(status: status, headers: headers, body: body))

    let outcome = Outcome()
    // libFuzzer calls this on its own thread, never on the cooperative pool: it may wait there
    // for the fetch's task, which runs on the pool.
    let done = DispatchSemaphore(value: 0)  // off-pool: libFuzzer's thread
    Task {
        defer { done.signal() }
        guard let policy = (try? BuiltInStrategies.registry.build(StrategyNode(name: "NoRetry"), kind: .network))?.as((any NetworkPolicy).self) else {
            return
        }
        let fetcher = SourceFetcher(policy: policy, requestTimeout: 1, environment: [:], jitter: { 0.5 }, exchange: exchange, fetchDeadline: 5)
        let source = TimelineSource.mastodon(URL(string: "http://127.0.0.1:9/api/v1/timelines/home")!, tokenVariable: "T")
        let refresh = await fetcher.fetch(source)
        outcome.messages.append(contentsOf: refresh.attempts.compactMap(\.failure).map(\.description))
        if case .failure(let error) = refresh.result { outcome.messages.append(error.message) }
        if let delay = refresh.attempts.compactMap(\.retryDelay).max(), delay > 5 { outcome.messages.append("\u{0}wait \(delay)") }
        guard let pages = HTTPPageSource(source, fetcher: fetcher, rateLimitSpentUntil: refresh.rateLimitSpentUntil) else { return }
        for request in [PageRequest.post("1"), .below(post: "1", limit: 40), .top(cursor: "1", limit: 40)] {
            let answered = await pages.answer(request)
            if case .failure(let error) = answered.answer { outcome.messages.append(error.message) }
        }
    }
    done.wait()  // off-pool: libFuzzer's thread
    for message in outcome.messages where message.unicodeScalars.contains(where: { $0.value < 0x20 }) {
        fatalError("a message carries a control character, or a wait passes the deadline: \(message.debugDescription)")
    }
    return 0
}

/// Answers every request with one answer.
struct FixedExchange: HTTPExchange {
    let answer: HTTPExchangeAnswer
    func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer { answer }
}

/// What the fetch said, handed from its task to the fuzzer's thread after the semaphore.
final class Outcome: @unchecked Sendable {
    var messages: [String] = []
}
