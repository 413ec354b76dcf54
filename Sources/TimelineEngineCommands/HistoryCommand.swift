import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine history --store PATH`: the saved positions, newest first.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print the position history saved in a store, newest first."
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let store = try await storeOptions.open(create: false)
        let history: [PositionSnapshotRow]
        do {
            history = try await store.positions.history(scope: scopeOptions.scope).map(PositionSnapshotRow.init)
        } catch {
            throw CommandFailure(error)
        }
        switch format {
        case .json:
            let value = Value.array(history.map(\.value))
            try Console.json(value)
        case .text:
            if history.isEmpty { Console.out("no saved positions for \(scopeOptions.account) / \(scopeOptions.timelineName)") }
            for row in history { Console.out(row.line) }
        }
    }
}

/// One saved snapshot, for printing.
struct PositionSnapshotRow {
    let snapshot: PositionSnapshot

    init(_ snapshot: PositionSnapshot) {
        self.snapshot = snapshot
    }

    var value: Value { SnapshotCoding.value(of: snapshot) }

    var line: String {
        var text = snapshot.savedAt.map { Timestamp.format($0) } ?? "(no time)"
        text += "  post \(TerminalText.escaped(snapshot.postId))"
        if let index = snapshot.index, let count = snapshot.timelineCount { text += " at index \(index) of \(count)" }
        text += ", viewportY \(RestoreCommand.points(snapshot.viewportY)), offset \(RestoreCommand.points(snapshot.contentOffset))"
        if let device = snapshot.deviceId { text += ", on \(device)" }
        return text
    }
}
