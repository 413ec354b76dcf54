import ArgumentParser
import Foundation
import JSONText
import SyncModel
import TimelineFormats
import ValueTree

/// `engine position show`: a register's value, its stamp, and every device's last position.
struct PositionShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a timeline's reading position in a store, its clock and device, and every device's last position."
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let store = try storeOptions.open(create: false)
        let state: ReplicaState
        do {
            state = try store.replicaState()
        } catch {
            throw CommandFailure(error)
        }
        let key = RegisterKey(account: scopeOptions.account, timeline: scopeOptions.timelineName)
        let register = state.registers[key]
        let devices = state.devicePositions(of: key)
        switch format {
        case .json:
            var pairs: [(String, Value)] = [("position", register?.snapshot.map(SnapshotCoding.value(of:)) ?? .null)]
            if let register {
                pairs += [("hlc", .string(register.stamp.time.description)), ("device", .string(register.device)),
                          ("savedAt", .string(Timestamp.format(register.savedAt))), ("forgotten", .bool(register.isTombstone))]
            }
            pairs.append(("devices", .array(devices.map { record in
                .dictionary([("device", .string(record.device)), ("postId", record.snapshot.map { .string($0.postId) } ?? .null),
                             ("hlc", .string(record.stamp.time.description)), ("savedAt", .string(Timestamp.format(record.savedAt)))])
            })))
            Console.outRaw((try? JSONWriter(style: .pretty).write(.dictionary(pairs))) ?? "{}\n")
        case .text:
            let name = "\(scopeOptions.account) / \(scopeOptions.timelineName)"
            if let register, let snapshot = register.snapshot {
                Console.out("\(name): post \(snapshot.postId), viewportY \(RestoreCommand.points(snapshot.viewportY)), saved on \(register.device) at \(Timestamp.format(register.savedAt)) (clock \(register.stamp.time))")
            } else if let register {
                Console.out("\(name): no position (forgotten on \(register.device) at \(Timestamp.format(register.savedAt)))")
            } else {
                Console.out("\(name): no position")
            }
            for record in devices {
                Console.out("  \(record.device): \(record.snapshot.map { "post \($0.postId)" } ?? "forgotten"), at \(Timestamp.format(record.savedAt))")
            }
        }
    }
}
