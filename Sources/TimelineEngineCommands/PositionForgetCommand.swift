import ArgumentParser

/// `engine position forget`: a tombstone for a timeline's position.
struct PositionForgetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a timeline's reading position: a tombstone that travels to every device.",
        discussion: """
            Once synced, position show prints no position on any device, until a newer save.

            Example:
              engine position forget --store phone.sqlite --account me --timeline-name home
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @OptionGroup var sync: SyncOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        _ = try sync.components(try sync.configured())
        let store = try await storeOptions.open(create: true)
        let device = try await sync.deviceId(store)
        do {
            let record = try await store.sync.forgetPosition(scope: scopeOptions.scope, device: device)
            Console.out("forgot the position of \(scopeOptions.account) / \(scopeOptions.timelineName) on \(device) at \(record.stamp.time)")
        } catch {
            throw CommandFailure(error)
        }
    }
}
