import Foundation
import Testing
import TimelineEngineBestConfidence
import TimelineEngineCacheModel
import TimelineEngineCore
import TimelineEngineFirstMatch
import TimelineEngineReachModel
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineStrategyTestSupport
import TimelineEngineSupport
import TimelineEngineValueTree
import TimelineEngineWeightedVote

/// The smallest cache policy, to reach the protocol's shared helpers.
struct KeepAll: CachePolicy {
    let name = "KeepAll"
    func evictions(from entries: [CacheEntry], now: Date) -> [String] { [] }
}

/// What a strategy is, tested directly: failures and retries, cache ordering, options, and the
/// step every composition shares.
@Suite("StrategyKit", .timeLimit(.minutes(10)))
struct StrategyKitTests {
    @Test("transient failures are the ones a later attempt may avoid: timeouts, lost connections, cut bodies, 408, 429, 5xx")
    func transientFailures() {
        let transient: [FetchFailure] = [
            .timeout, .connection("refused"), .truncated, .http(status: 408, retryAfter: nil),
            .http(status: 429, retryAfter: 2), .http(status: 500, retryAfter: nil),
            .http(status: 503, retryAfter: nil), .http(status: 599, retryAfter: nil),
        ]
        let final: [FetchFailure] = [
            .http(status: 400, retryAfter: nil), .http(status: 401, retryAfter: nil),
            .http(status: 404, retryAfter: nil), .http(status: 407, retryAfter: nil),
            .http(status: 409, retryAfter: nil), .http(status: 600, retryAfter: nil), .invalidContent("text/html"),
        ]
        for failure in transient { #expect(failure.isTransient, "\(failure)") }
        for failure in final { #expect(!failure.isTransient, "\(failure)") }
        #expect(FetchFailure.http(status: 429, retryAfter: nil).isRateLimit)
        #expect(FetchFailure.http(status: 503, retryAfter: 5).isRateLimit)
        #expect(!FetchFailure.http(status: 503, retryAfter: nil).isRateLimit)
        #expect(!FetchFailure.timeout.isRateLimit)
    }

    @Test("least recently used first: by last access, then by storage time, then by key")
    func leastRecentlyUsedOrder() {
        let t = { (seconds: Double) in Date(timeIntervalSince1970: seconds) }
        let entries = [
            CacheEntry(key: "c", storedAt: t(10), lastAccess: t(50)),
            CacheEntry(key: "b", storedAt: t(20), lastAccess: t(40)),
            CacheEntry(key: "a", storedAt: t(20), lastAccess: t(40)),
            CacheEntry(key: "d", storedAt: t(15), lastAccess: t(40)),
            CacheEntry(key: "e", storedAt: t(5)),
        ]
        #expect(KeepAll.leastRecentlyUsedFirst(entries).map(\.key) == ["e", "d", "a", "b", "c"])
    }

    @Test("integer options round half away from zero, and a number too large for Int is none")
    func integerOptions() {
        let options = StrategyOptions(parameters: [
            "half": Value.Member(value: .real(2.5)), "below": Value.Member(value: .real(2.4)), "negative": Value.Member(value: .real(-2.5)),
            "whole": Value.Member(value: .integer(7)), "huge": Value.Member(value: .real(1e300)), "text": Value.Member(value: .string("7")),
        ])
        #expect(options.int("half") == 3)
        #expect(options.int("below") == 2)
        #expect(options.int("negative") == -3)
        #expect(options.int("whole") == 7)
        #expect(options.int("huge") == nil)
        #expect(options.int("text") == nil)
        #expect(options.int("missing") == nil)
        #expect(options.double("half") == 2.5)
        #expect(options.string("text") == "7")
    }

    @Test("a composition built without stages is refused by name")
    func compositionsNeedStages() {
        for (type, name) in [
            (FirstMatchStrategy.type, "FirstMatch"), (BestConfidenceStrategy.type, "BestConfidence"),
            (WeightedVoteStrategy.type, "WeightedVote"),
        ] {
            #expect(throws: StrategyError("\(name) needs at least one stage")) { try type.make(StrategyOptions()) }
        }
    }

    @Test("a composition step records the stage's verdict at its depth, then its own stages' one level deeper")
    func compositionStep() {
        let inner = FirstMatchStrategy(stages: [FixedStage(name: "Inner", index: 2, confidence: 0.9)])
        let request = RestorationRequest(
            snapshot: nil,
            index: TimelineIndex(
                Timeline(
                    posts: (0..<5).map {
                        Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: Double($0)))
                    })))
        var trace = [StageVerdict(stage: "Before", candidate: nil, verdict: "no candidate")]
        let (candidate, position) = CompositionStep.run(inner, request, trace: &trace, depth: 1) { $0 == nil ? "none" : "provisional" }
        #expect(candidate?.index == 2)
        #expect(position == 1)
        #expect(trace.map(\.stage) == ["Before", "FirstMatch", "Inner"])
        #expect(trace.map(\.depth) == [0, 1, 2])
        #expect(trace.map(\.verdict) == ["no candidate", "provisional", "chosen"])
    }
}

extension StrategyKitTests {
    @Test("a type builds its examples when they are asked for, each time, never when it is declared")
    func examplesAreBuiltWhenAskedFor() {
        let builds = Locked(0)
        @Sendable func examples() -> [any StrategyExample] {
            builds.withLock { $0 += 1 }
            return BestConfidenceStrategy.type.examples
        }
        let type = StrategyType(
            name: "Counted", kind: .restoration, summary: "Counts the builds of its examples.", examples: examples(),
            make: BestConfidenceStrategy.type.make)
        #expect(builds.withLock { $0 } == 0)
        #expect(type.examples.map(\.name) == BestConfidenceStrategy.type.examples.map(\.name))
        #expect(!type.examples.isEmpty)
        #expect(builds.withLock { $0 } == 2)
    }
}
