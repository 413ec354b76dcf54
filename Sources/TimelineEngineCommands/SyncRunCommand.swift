import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine sync run`: one round with the configured transport.
struct SyncRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Pull, merge and push a store's positions once, with the configured transport.",
        discussion: """
            Prints the registers that moved, then a summary. Sources that cannot be read (a \
            file half copied by a sync tool) are warnings on standard error.

            Exit codes: 0 synced, 1 the transport failed or the configuration is invalid, 2 bad \
            usage, 3 the transport cannot be reached (a sync folder that does not exist): the \
            outbox keeps every change for the next round.

            Example:
              engine sync run --store phone.sqlite --config sync.plist
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var sync: SyncOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (engine, components, store, device) = try await sync.open(storeOptions)
        let round = SyncRound(
            store: store, components: components, device: device,
            gracePeriod: engine.configuration.sync.tombstoneGracePeriod, maxClockOffset: engine.configuration.sync.maxClockOffset)
        let report: SyncRound.Report
        do {
            report = try await round.run()
        } catch let failure as SyncRound.Failure {
            let kind: CommandFailure.Kind = failure.error.kind == .unreachable ? .offline : .failed
            // The second line informs: the changes wait for the next round, whatever failed.
            let state = failure.error.kind == .unreachable ? "offline" : "note"
            throw CommandFailure(
                kind, "error: \(failure.description)\n\(state): \(failure.pending) \(failure.pending == 1 ? "change" : "changes") kept in the outbox")
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as StoreError {
            throw CommandFailure(error)
        } catch {
            throw CommandFailure(.failed, "error: \(error)")
        }
        if let limitations = components.transport.limitations { Console.error("note: \(limitations)") }
        for warning in report.warnings { Console.error("warning: \(warning)") }
        for (wrong, ahead) in report.wrongClocks.sorted(by: { $0.key < $1.key }) {
            Console.error(
                "warning: \(wrong)'s clock is \(Self.duration(ahead)) ahead of this device's: its writes are taken in without moving this device's clock"
            )
        }
        if report.resynced { Console.out("back after more than the grace period: started again from the other devices") }
        for (key, postId) in report.changed {
            Console.out("\(key.account) / \(key.timeline): \(postId.map { "now post \(TerminalText.escaped($0))" } ?? "forgotten")")
        }
        let heard = report.devices.isEmpty ? "no other device" : report.devices.joined(separator: ", ")
        Console.out(
            "synced \(device) with \(components.transportSpec.name): heard from \(heard); \(report.changed.count) moved, \(report.acknowledged) sent")
    }

    /// A span of seconds as people say it: "3 min", "2 h", "50 years".
    static func duration(_ seconds: Double) -> String {
        switch seconds {
        case ..<120: return "\(Int(seconds.rounded())) s"
        case ..<7_200: return "\(Int((seconds / 60).rounded())) min"
        case ..<172_800: return "\(Int((seconds / 3_600).rounded())) h"
        case ..<63_072_000: return "\(Int((seconds / 86_400).rounded())) days"
        default: return "\(Int((seconds / 31_557_600).rounded())) years"
        }
    }
}
