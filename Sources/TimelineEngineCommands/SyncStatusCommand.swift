import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine sync status`: the last round, the pending writes and the known devices.
struct SyncStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print how syncing stands: the status, the last sync time, the pending changes, the known devices and any wrong clocks."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let store = try await storeOptions.open(create: false)
        let report: SyncStatusReport
        do {
            report = try await SyncStatusReport(store: store)
        } catch {
            throw CommandFailure(error)
        }
        let record = report.record
        switch format {
        case .json:
            try Console.json(report.jsonValue)
        case .text:
            Console.out("device \(report.device): \(report.status)")
            Console.out("pending: \(report.pending)")
            Console.out("known devices: \(record.devices.isEmpty ? "none" : record.devices.joined(separator: ", "))")
            for clock in record.wrongClocks {
                Console.out(
                    "wrong clock: \(clock.device) is \(SyncRunCommand.duration(clock.ahead)) ahead (seen \(Timestamp.format(clock.seenAt))); its writes are taken in without moving this device's clock"
                )
            }
        }
    }
}
