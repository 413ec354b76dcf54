import Foundation
import PropertyBased
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineRestoration
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The conformance suite of merge policies: every registered one passes its own scenarios (the
/// winner, the reason, what it offers the reader) in every order of delivery, and converges on
/// random histories (2 to 6 devices, clocks skewed by up to a day and sometimes one fifty years
/// ahead, writes, tombstones and explicit moves back, deliveries dropped, duplicated and
/// reordered). A policy whose value depends on the order the heads arrived in (`inputs`
/// `.arrivalOrder`, the models of other apps' last-arriving rules) passes its scenarios in
/// their own order, and does not converge: that is the failure it models. A new merge policy
/// gets all of this without writing a test.
@Suite("Merge policy conformance", .timeLimit(.minutes(10)))
struct MergeConformanceTests {
    /// `Sync.MaxClockOffset` at its default, in milliseconds.
    static let maxOffset = HybridClock.maxOffset(seconds: SyncSettings().maxClockOffset)

    static let types = BuiltInStrategies.registry.types(of: .merge)
    static let key = RegisterKey(account: "me", timeline: "home")

    static func policy(_ name: String, parameters: Value.Dictionary = [:]) throws -> any MergePolicy {
        guard
            let policy = try BuiltInStrategies.registry.build(StrategyNode(name: name, parameters: parameters), kind: .merge).as(
                (any MergePolicy).self)
        else {
            throw StrategyError("\(name) is not a merge policy")
        }
        return policy
    }

    /// Every permutation of `items` (up to 4! = 24).
    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[T]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// The policies whose value depends on the heads alone, not the order they arrived in.
    static let convergent = types.map(\.name).filter { name in (try? policy(name).inputs.contains(.arrivalOrder)) == false }

    @Test("the registry has merge policies, each with scenarios")
    func registered() {
        #expect(Self.types.count >= 8)
        for type in Self.types { #expect(!type.examples(of: MergeScenario.self).isEmpty, "\(type.name)") }
        #expect(Set(Self.types.map(\.name)).subtracting(Self.convergent) == ["MarkerArrival", "Overwrite"])
    }

    @Test(
        "every named scenario keeps the expected write, for the expected reason, offering what it says, whatever the order and duplication",
        arguments: types.map(\.name))
    func scenarios(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        for scenario in type.examples(of: MergeScenario.self) {
            let policy = try Self.policy(name, parameters: scenario.parameters)
            let expected = scenario.records[scenario.expectedWinner]
            let orders = policy.inputs.contains(.arrivalOrder) ? [scenario.records] : Self.permutations(scenario.records)
            for order in orders {
                var register = Register(order + order.reversed())
                for device in scenario.reports { register.report(device) }
                let resolution = policy.resolve(register, on: scenario.device)
                #expect(resolution.winner == expected, "\(name): \(scenario.name)")
                if let reason = scenario.expectedReason { #expect(resolution.reason == reason, "\(name): \(scenario.name)") }
                #expect(resolution.offer == scenario.expectedOffer.map { scenario.records[$0] }, "\(name): \(scenario.name): offer")
                if scenario.device == nil { #expect(policy.value(of: register) == expected, "\(name): \(scenario.name): value") }
            }
        }
    }

    @Test("the last-arriving rules keep the write that arrived last, and a report again only under Overwrite")
    func arrivalOrder() throws {
        let old = PositionRecord.example("laptop", 2, at: 600_000, "p12", created: 120)
        let new = PositionRecord.example("phone", 4, at: 700_000, "p40", created: 400)
        for (name, reported) in [("MarkerArrival", new), ("Overwrite", old)] {
            let policy = try Self.policy(name)
            #expect(policy.value(of: Register([old, new])) == new, "\(name)")
            #expect(policy.value(of: Register([new, old])) == old, "\(name)")
            var register = Register([old, new])
            register.report("laptop")
            #expect(policy.value(of: register) == reported, "\(name)")
            // A replica's arrival order is not its state: the same heads are equal registers.
            #expect(Register([old, new]) == Register([new, old]))
        }
    }

    /// A seeded draw.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// A device in a simulated history: its clock's skew, its clock, its write counter, what it knows.
    struct Device {
        var name: String
        var skew: Int64
        var clock = HybridClock()
        var sequence: UInt64 = 0
        var state = ReplicaState()
    }

    /// A random history of writes and deliveries between devices (every write made by the
    /// register's own local-write rule), ending with everyone hearing everything in their own
    /// order: the devices, and every write made.
    static func history(seed: Int) -> (devices: [Device], writes: [PositionRecord]) {
        var draw = Draw(state: UInt64(seed))
        let day: Int64 = 86_400_000
        var devices = (0..<(2 + draw.next(5))).map { number in
            Device(name: "d\(number)", skew: Int64(draw.next(Int(2 * day + 1))) - day)
        }
        // One history in five has a device fifty years ahead.
        if draw.next(5) == 0 { devices[draw.next(devices.count)].skew = 50 * 365 * day }
        var wall: Int64 = 1_700_000_000_000
        var everything: [PositionRecord] = []
        for _ in 0..<(5 + draw.next(40)) {
            wall += Int64(draw.next(120_000))
            let actor = draw.next(devices.count)
            if draw.next(3) == 0 {
                // A delivery from another device: a random subset, shuffled, some twice.
                let source = devices[draw.next(devices.count)].state.records
                var delivered = source.filter { _ in draw.next(3) != 0 }
                delivered += delivered.filter { _ in draw.next(4) == 0 }
                for index in delivered.indices.reversed() { delivered.swapAt(index, draw.next(index + 1)) }
                for record in delivered {
                    devices[actor].clock.observe(record.stamp.time, wall: UInt64(wall + devices[actor].skew), maxOffset: Self.maxOffset)
                    devices[actor].state.apply(record)
                }
            } else {
                let time = devices[actor].clock.tick(wall: UInt64(wall + devices[actor].skew))
                let stamp = RegisterStamp(time: time, device: devices[actor].name)
                devices[actor].sequence += 1
                let kind = draw.next(10)
                let post = draw.next(50)
                let snapshot = kind == 0 ? nil : PositionSnapshot(postId: "p\(post)", postCreatedAt: Date(timeIntervalSince1970: Double(post * 60)))
                let record = devices[actor].state[Self.key].localWrite(
                    snapshot, key: Self.key, stamp: stamp, sequence: devices[actor].sequence,
                    savedAt: Date(timeIntervalSince1970: Double(wall) / 1000),
                    explicit: kind == 1, visit: draw.next(3) == 0 ? .init(seconds: Double(draw.next(60)), posts: draw.next(6)) : nil)
                devices[actor].state.apply(record)
                everything.append(record)
            }
        }
        // Anti-entropy: everyone hears everything, in their own order.
        for index in devices.indices {
            var all = everything
            for position in all.indices.reversed() { all.swapAt(position, draw.next(position + 1)) }
            for record in all { devices[index].state.apply(record) }
        }
        return (devices, everything)
    }

    @Test("random histories converge: every replica holds the same heads and the same value", arguments: convergent)
    func convergence(_ name: String) async throws {
        let policy = try Self.policy(name)
        await pinnedPropertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
            let (devices, _) = Self.history(seed: seed)
            let first = devices[0].state
            for device in devices.dropFirst() {
                #expect(device.state == first, "\(name), seed \(seed): heads")
                #expect(policy.value(of: device.state[Self.key]) == policy.value(of: first[Self.key]), "\(name), seed \(seed): value")
            }
        }
    }

    @Test("under CausalFurthest, a write made after seeing every other device's latest is the value, whatever the clocks")
    func causalWritesWin() async throws {
        let policy = try Self.policy("CausalFurthest")
        await pinnedPropertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
            var (devices, _) = Self.history(seed: seed)
            var draw = Draw(state: UInt64(seed) ^ 0x5eed)
            let writer = draw.next(devices.count)
            let register = devices[writer].state[Self.key]
            let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: 1, counter: 0), device: devices[writer].name)
            let record = register.localWrite(
                PositionSnapshot(postId: "last", postCreatedAt: Date(timeIntervalSince1970: 0)), key: Self.key, stamp: stamp,
                sequence: devices[writer].sequence + 1, savedAt: Date(timeIntervalSince1970: 0))
            devices[writer].state.apply(record)
            let resolution = policy.resolve(devices[writer].state[Self.key])
            #expect(resolution.winner?.snapshot?.postId == "last", "seed \(seed)")
            #expect(resolution.candidates.count == 1, "seed \(seed)")
        }
    }

    @Test("a write made after seeing another wins over it under LastWriterWins, a clock an hour fast or a day slow")
    func causalityBeatsSkew() throws {
        let policy = try Self.policy("LastWriterWins")
        for skew: Int64 in [3_600_000, -86_400_000] {
            var fast = HybridClock()
            var skewed = HybridClock()
            let wall: Int64 = 1_700_000_000_000
            let first = RegisterStamp(time: fast.tick(wall: UInt64(wall - skew)), device: "zzz")
            skewed.observe(first.time, wall: UInt64(wall + skew), maxOffset: nil)
            let second = RegisterStamp(time: skewed.tick(wall: UInt64(wall + skew)), device: "aaa")
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let a = PositionRecord(key: Self.key, stamp: first, savedAt: date, snapshot: PositionSnapshot(postId: "a"), epoch: .zero, progress: nil)
            let b = PositionRecord(key: Self.key, stamp: second, savedAt: date, snapshot: PositionSnapshot(postId: "b"), epoch: .zero, progress: nil)
            #expect(policy.value(of: Register([a, b])) == b, "skew \(skew)")
            #expect(policy.value(of: Register([b, a])) == b, "skew \(skew)")
        }
    }

    @Test("the hybrid clock never goes backwards, its counter never overflows, and a stamp beyond the maximum offset leaves it alone")
    func clock() {
        var clock = HybridClock()
        var previous = HybridTimestamp.zero
        for _ in 0..<70_000 {
            let next = clock.tick(wall: 1_000)
            #expect(next > previous)
            previous = next
        }
        #expect(previous.milliseconds == 1_001)
        // Within the maximum offset a remote timestamp moves the clock; later local writes sort after it.
        let near = HybridTimestamp(milliseconds: 200_000, counter: 5)
        #expect(clock.observe(near, wall: 2_000, maxOffset: Self.maxOffset) == HybridClock.Observation(ahead: 198_000, taken: true))
        #expect(clock.tick(wall: 2_000) > near)
        // Beyond it (fifty years ahead), it is reported and left out.
        let future = HybridTimestamp(milliseconds: 1_577_880_000_000 + 2_000, counter: 0)
        #expect(clock.observe(future, wall: 2_000, maxOffset: Self.maxOffset) == HybridClock.Observation(ahead: 1_577_880_000_000, taken: false))
        #expect(clock.tick(wall: 2_000) < future)
        // At its largest value the clock stays there rather than wrap.
        var saturated = HybridClock(last: HybridTimestamp(rawValue: .max))
        #expect(saturated.tick(wall: 5) == HybridTimestamp(rawValue: .max))
        #expect(HybridTimestamp(future.description) == future)
        #expect(HybridTimestamp("xyz") == nil)
    }
}
