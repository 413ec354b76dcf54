import Foundation
import PropertyBased
import RestorationEngine
import StrategyKit
import SyncModel
import Testing
import TimelineCore
import ValueTree

/// The conformance suite of merge policies: every registered one passes its own scenarios in
/// every order of delivery, and converges on random histories (2 to 5 devices, clocks skewed by
/// up to an hour, writes, tombstones and explicit moves back, deliveries dropped, duplicated and
/// reordered). A new merge policy gets all of this without writing a test.
@Suite("Merge policy conformance")
struct MergeConformanceTests {
    static let types = BuiltInStrategies.registry.types(of: .merge)
    static let key = RegisterKey(account: "me", timeline: "home")

    static func policy(_ name: String, parameters: Value.Dictionary = [:]) throws -> any MergePolicy {
        guard case .merge(let policy) = try BuiltInStrategies.registry.build(StrategyNode(name: name, parameters: parameters), kind: .merge) else {
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

    @Test("the registry has merge policies, each with scenarios")
    func registered() {
        #expect(Self.types.count >= 2)
        for type in Self.types { #expect(!type.mergeScenarios.isEmpty, "\(type.name)") }
    }

    @Test("every named scenario keeps the expected write, whatever the order and duplication", arguments: types.map(\.name))
    func scenarios(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        for scenario in type.mergeScenarios {
            let policy = try Self.policy(name, parameters: scenario.parameters)
            let expected = scenario.records[scenario.expectedWinner]
            for order in Self.permutations(scenario.records) {
                var state = ReplicaState()
                for record in order + order.reversed() { state.apply(record, policy: policy) }
                #expect(state.registers[Self.key] == expected, "\(name): \(scenario.name)")
            }
        }
    }

    /// A seeded draw.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// A device in a simulated history: its clock's skew, its clock, what it knows.
    struct Device {
        var name: String
        var skew: Int64
        var clock = HybridClock()
        var state = ReplicaState()
    }

    @Test("random histories converge: merge is commutative, associative and idempotent", arguments: types.map(\.name))
    func convergence(_ name: String) async throws {
        let policy = try Self.policy(name)
        await propertyCheck(count: 200, input: Gen.int(in: 0...1_000_000)) { seed in
            var draw = Draw(state: UInt64(seed))
            var devices = (0..<(2 + draw.next(4))).map { number in
                Device(name: "d\(number)", skew: Int64(draw.next(7_200_001)) - 3_600_000)
            }
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
                        devices[actor].clock.observe(record.stamp.time, wall: UInt64(wall + devices[actor].skew))
                        devices[actor].state.apply(record, policy: policy)
                    }
                } else {
                    let time = devices[actor].clock.tick(wall: UInt64(wall + devices[actor].skew))
                    let stamp = RegisterStamp(time: time, device: devices[actor].name)
                    let kind = draw.next(10)
                    let post = draw.next(50)
                    let reset = kind < 2
                    let record = PositionRecord(
                        key: Self.key, stamp: stamp, savedAt: Date(timeIntervalSince1970: Double(wall) / 1000),
                        snapshot: kind == 0 ? nil : PositionSnapshot(postId: "p\(post)"),
                        epoch: reset ? stamp : devices[actor].state.epoch(of: Self.key),
                        progress: kind == 0 ? nil : .init(createdAt: Double(post * 60), postId: "p\(post)"))
                    devices[actor].state.apply(record, policy: policy)
                    everything.append(record)
                }
            }
            // Anti-entropy: everyone hears everything, in their own order.
            for index in devices.indices {
                var all = everything
                for position in all.indices.reversed() { all.swapAt(position, draw.next(position + 1)) }
                for record in all { devices[index].state.apply(record, policy: policy) }
            }
            let first = devices[0].state.registers
            for device in devices.dropFirst() { #expect(device.state.registers == first, "\(name), seed \(seed)") }
            // The order is a strict total order on these writes: exactly one wins each pair.
            for a in everything.prefix(12) {
                for b in everything.prefix(12) where a.stamp != b.stamp {
                    #expect(policy.precedes(a, b) != policy.precedes(b, a), "\(name), seed \(seed)")
                }
            }
        }
    }

    @Test("a policy's order key sorts writes exactly as the policy orders them (what the sync server merges by)",
          arguments: types.map(\.name) + ["FurthestRead(Direction: Older)"])
    func orderKeys(_ spec: String) async throws {
        let policy = spec.hasSuffix("(Direction: Older)")
            ? try Self.policy("FurthestRead", parameters: ["Direction": .init(value: .string("Older"))]) : try Self.policy(spec)
        guard policy.orderKey(of: PositionRecord(key: Self.key, stamp: .zero, savedAt: Date(), snapshot: nil, epoch: .zero, progress: nil)) != nil else {
            return
        }
        await propertyCheck(count: 300, input: Gen.int(in: 0...1_000_000)) { seed in
            var draw = Draw(state: UInt64(seed))
            // Small alphabets so that ties on every part come up, and strings with NUL and
            // prefixes of each other, and negative and fractional creation times.
            let devices = ["", "a", "a\u{0}", "a\u{0}b", "ab", "é", "\u{0}"]
            let posts = ["p", "p1", "p\u{0}", "p10", "q"]
            let times: [Double] = [-1.5, -0.0, 0, 1e-9, 60, 60.5, 1e12]
            func stamp() -> RegisterStamp {
                RegisterStamp(time: HybridTimestamp(milliseconds: UInt64(draw.next(3)), counter: UInt16(draw.next(2))), device: devices[draw.next(devices.count)])
            }
            func record() -> PositionRecord {
                let tombstone = draw.next(5) == 0
                let post = posts[draw.next(posts.count)]
                return PositionRecord(key: Self.key, stamp: stamp(), savedAt: Date(), snapshot: tombstone ? nil : PositionSnapshot(postId: post),
                                      epoch: draw.next(2) == 0 ? .zero : stamp(),
                                      progress: tombstone || draw.next(4) == 0 ? nil : .init(createdAt: times[draw.next(times.count)], postId: post))
            }
            for _ in 0..<20 {
                let (a, b) = (record(), record())
                let (ka, kb) = (policy.orderKey(of: a)!, policy.orderKey(of: b)!)
                #expect(policy.precedes(a, b) == (ka < kb), "\(spec), seed \(seed): \(a.stamp) \(b.stamp)")
                if a.stamp != b.stamp { #expect(ka != kb) }
            }
        }
    }

    @Test("a write made after seeing another wins over it under LastWriterWins, a clock an hour fast or a day slow")
    func causalityBeatsSkew() throws {
        let policy = try Self.policy("LastWriterWins")
        for skew: Int64 in [3_600_000, -86_400_000] {
            var fast = HybridClock(), skewed = HybridClock()
            let wall: Int64 = 1_700_000_000_000
            let first = RegisterStamp(time: fast.tick(wall: UInt64(wall - skew)), device: "zzz")
            skewed.observe(first.time, wall: UInt64(wall + skew))
            let second = RegisterStamp(time: skewed.tick(wall: UInt64(wall + skew)), device: "aaa")
            let date = Date(timeIntervalSince1970: 1_700_000_000)
            let a = PositionRecord(key: Self.key, stamp: first, savedAt: date, snapshot: PositionSnapshot(postId: "a"), epoch: .zero, progress: nil)
            let b = PositionRecord(key: Self.key, stamp: second, savedAt: date, snapshot: PositionSnapshot(postId: "b"), epoch: .zero, progress: nil)
            #expect(policy.merge(a, b) == b, "skew \(skew)")
            #expect(policy.merge(b, a) == b, "skew \(skew)")
        }
    }

    @Test("the hybrid clock never goes backwards and its counter never overflows")
    func clock() {
        var clock = HybridClock()
        var previous = HybridTimestamp.zero
        for _ in 0..<70_000 {
            let next = clock.tick(wall: 1_000)
            #expect(next > previous)
            previous = next
        }
        #expect(previous.milliseconds == 1_001)
        // A remote timestamp far in the future moves the clock; later local writes still sort after it.
        let future = HybridTimestamp(milliseconds: 9_000_000, counter: 5)
        #expect(clock.observe(future, wall: 2_000) == 8_998_000)
        #expect(clock.tick(wall: 2_000) > future)
        #expect(HybridTimestamp(future.description) == future)
        #expect(HybridTimestamp("xyz") == nil)
    }
}
