import Foundation

/// Waits in tests that always end: a condition checked every few milliseconds until it holds
/// or the deadline passes, which fails with what was awaited.
public enum Deadline {
    /// How much longer than written every deadline and loopback request timeout is allowed to be:
    /// `ENGINE_TEST_DEADLINE_SCALE`, 1 when unset. A sanitizer slows code down many times over
    /// (`Tests/sanitize.sh` sets 10), and a timeout written for a normal build would then fail a
    /// test that is right. Timeouts a test is about are written without it.
    public static let scale: Double = {
        guard let text = ProcessInfo.processInfo.environment["ENGINE_TEST_DEADLINE_SCALE"], let value = Double(text),
            value.isFinite, value >= 1
        else { return 1 }
        return value
    }()

    /// `seconds` times `scale`.
    public static func scaled(_ seconds: Double) -> Double { seconds * scale }

    public struct Expired: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns once `condition` holds; throws `Expired` naming `what` after `seconds`. The
    /// condition is checked again after 5 ms, then twice as long each time up to 100 ms
    /// (`pause(after:)`).
    public static func wait(seconds: Double, _ what: String, _ condition: () async throws -> Bool) async throws {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(scaled(seconds))
        var checks = 0
        while try await !condition() {
            guard clock.now < end else { throw Expired(description: "waited \(seconds) s for \(what)") }
            try await Task.sleep(for: pause(after: checks))
            checks += 1
        }
    }

    /// How long a wait pauses after `checks` checks that did not hold: 5 ms, doubling up to
    /// 100 ms. A few dozen tests waiting at once on a 2-thread cooperative pool each woke it
    /// 200 times a second at a fixed 5 ms, and the pool's threads spent the run switching
    /// between waits instead of running the tests that were waited for.
    public static func pause(after checks: Int) -> Duration {
        .milliseconds(min(100, 5 << min(checks, 5)))
    }

    /// The value `body` gives, or `Expired` naming `what` after `seconds` (the body is cancelled).
    public static func value<T: Sendable>(within seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T
    {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(scaled(seconds)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw Expired(description: "waited \(seconds) s for \(what)") }
            return value
        }
    }
}
