import ArgumentParser
import Foundation
import TimelineEngine

/// `engine sync status`: the last round, the pending writes and the known devices.
struct SyncStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print how syncing stands: the status, the last sync time, the pending changes, the known devices and any wrong clocks."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let store = try storeOptions.open(create: false)
        let record: TimelineStore.SyncRecord
        let pending: Int
        let device: String
        do {
            record = try store.syncRecord()
            pending = try store.pendingWrites().count
            device = try store.storedDeviceId() ?? "(no id yet)"
        } catch {
            throw CommandFailure(error)
        }
        let status: String
        if let error = record.lastError, record.lastAttemptAt != record.lastSyncAt {
            status = "error: \(error)"
        } else if let last = record.lastSyncAt {
            status = pending > 0 ? "synced at \(Timestamp.format(last)), \(pending) pending" : "synced at \(Timestamp.format(last))"
        } else {
            status = pending > 0 ? "never synced, \(pending) pending" : "idle: never synced"
        }
        switch format {
        case .json:
            let value = Value.dictionary([
                ("device", .string(device)), ("status", .string(status)),
                ("lastSyncAt", record.lastSyncAt.map { .string(Timestamp.format($0)) } ?? .null),
                ("lastError", record.lastError.map(Value.string) ?? .null), ("pending", .integer(pending)),
                ("devices", .array(record.devices.map(Value.string))),
                (
                    "wrongClocks",
                    .array(
                        record.wrongClocks.map { clock in
                            .dictionary([
                                ("device", .string(clock.device)), ("aheadSeconds", .real(clock.ahead)),
                                ("seenAt", .string(Timestamp.format(clock.seenAt))),
                            ])
                        })
                ),
            ])
            try Console.json(value)
        case .text:
            Console.out("device \(device): \(status)")
            Console.out("pending: \(pending)")
            Console.out("known devices: \(record.devices.isEmpty ? "none" : record.devices.joined(separator: ", "))")
            for clock in record.wrongClocks {
                Console.out(
                    "wrong clock: \(clock.device) is \(SyncRunCommand.duration(clock.ahead)) ahead (seen \(Timestamp.format(clock.seenAt))); its writes are taken in without moving this device's clock"
                )
            }
        }
    }
}
