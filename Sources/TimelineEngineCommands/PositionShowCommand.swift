import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine position show`: a register's value under the configured merge policy, why it won,
/// and every device's head.
struct PositionShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a timeline's reading position in a store, why it won, and every device's latest write (its head).",
        discussion: """
            The value is resolved from the heads by the configuration's merge policy \\
            (Sync.Policy). A head is live unless another device's head was written after \\
            seeing it; live heads were written concurrently, and the policy chooses among them.

            Example:
              engine position show --store laptop.sqlite --account me --timeline-name home
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var sync: SyncOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let policy = try sync.components(try sync.configured()).policy
        let store = try await storeOptions.open(create: false)
        let key = RegisterKey(account: scopeOptions.account, timeline: scopeOptions.timelineName)
        let register: Register
        do {
            register = try await store.sync.register(of: key)
        } catch {
            throw CommandFailure(error)
        }
        let resolution = policy.resolve(register)
        let live = Set(register.liveHeads.map(\.device))
        let value = resolution.winner
        switch format {
        case .json:
            var pairs: [(String, Value)] = [("position", value?.snapshot.map(SnapshotCoding.value(of:)) ?? .null)]
            if let value {
                pairs += [
                    ("hlc", .string(value.stamp.time.description)), ("device", .string(value.device)),
                    ("savedAt", .string(Timestamp.format(value.savedAt))), ("forgotten", .bool(value.isTombstone)),
                ]
            }
            pairs += [("policy", .string(policy.name)), ("reason", .string(resolution.reason))]
            pairs.append(
                (
                    "heads",
                    .array(
                        register.heads.map { head in
                            var fields: [(String, Value)] = [
                                ("device", .string(head.device)), ("postId", head.snapshot.map { .string($0.postId) } ?? .null),
                                ("seq", Value(.integer(IntegerValue(head.sequence)))),
                                ("context", .dictionary(head.context.entries.map { ($0.device, Value(.integer(IntegerValue($0.sequence)))) })),
                                ("hlc", .string(head.stamp.time.description)), ("savedAt", .string(Timestamp.format(head.savedAt))),
                                ("live", .bool(live.contains(head.device))), ("won", .bool(head.device == value?.device)),
                            ]
                            if head.isReset { fields.append(("reset", .bool(true))) }
                            if let visit = head.visit {
                                fields.append(("visit", .dictionary([("seconds", .real(visit.seconds)), ("posts", .integer(visit.posts))])))
                            }
                            if !head.clocks.isEmpty {
                                fields.append(
                                    ("clocks", .dictionary(head.clocks.entries.map { ($0.device, Value(.integer(IntegerValue($0.ahead)))) })))
                            }
                            if head.clocksRevision > 0 { fields.append(("clocksRevision", Value(.integer(IntegerValue(head.clocksRevision))))) }
                            return .dictionary(fields)
                        })
                ))
            try Console.json(.dictionary(pairs))
        case .text:
            let name = "\(scopeOptions.account) / \(scopeOptions.timelineName)"
            if let value, let snapshot = value.snapshot {
                Console.out(
                    "\(name): post \(TerminalText.escaped(snapshot.postId)), viewportY \(RestoreCommand.points(snapshot.viewportY)), saved on \(value.device) at \(Timestamp.format(value.savedAt)) (clock \(value.stamp.time); \(resolution.reason))"
                )
            } else if let value {
                Console.out("\(name): no position (forgotten on \(value.device) at \(Timestamp.format(value.savedAt)); \(resolution.reason))")
            } else {
                Console.out("\(name): no position")
            }
            for head in register.heads {
                let what = head.snapshot.map { "post \(TerminalText.escaped($0.postId))" } ?? "forgotten"
                let state = live.contains(head.device) ? "live" : "seen by another device's later write"
                Console.out("  \(head.device): \(what), at \(Timestamp.format(head.savedAt)), write \(head.sequence), \(state)")
            }
        }
    }
}
