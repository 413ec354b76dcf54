import ArgumentParser
import Dispatch
import Foundation
import TimelineEngineKit

/// `engine sync watch`: the sync coordinator in the foreground, as an app runs it, printing
/// each remote change as it arrives.
struct SyncWatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep a store in sync and print each position another device saves, as it arrives, until interrupted.",
        discussion: """
            Runs the sync coordinator an app runs: it listens on the transport's change \\
            stream (the sync server's long-poll, the shared folder's change notifications, \\
            polling for Mastodon's marker), merges what arrives, and publishes this store's \\
            own saves after Sync.DebounceInterval, including those another process (engine \\
            position save) makes. Each time a register's value moves to another device's \\
            position, one line is printed: in text, the register, the post, the device and why \\
            it won; with --format json, one JSON object per line. Status changes (offline, \\
            errors) go to standard error.

            SIGINT or SIGTERM stops it cleanly: a round in flight finishes, and it exits 0.

            Example:
              engine sync watch --store laptop.sqlite --config sync.plist
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var sync: SyncOptions

    @Option(name: .long, help: "Output format: text, or json for one JSON object per line.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let (engine, components, store, device) = try await sync.open(storeOptions)
        let coordinator: SyncCoordinator
        do {
            coordinator = try SyncCoordinator(
                store: store, components: components, configuration: engine.configuration, registry: engine.registry,
                device: device)
        } catch {
            throw CommandFailure(.invalidInput, "error: \(error.description)")
        }
        let events = coordinator.events
        let statuses = coordinator.statusUpdates
        Console.error("watching \(device) with \(components.transportSpec.name); stop with Ctrl-C")
        if let limitations = components.transport.limitations { Console.error("note: \(limitations)") }
        let format = self.format
        // Set when the store's file is deleted or replaced under the watch: it then stops, since
        // its saves would go where no one reads and the new file's would not be published.
        let storeGone = Locked<String?>(nil)
        let stop = Latch()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await coordinator.run() }
            group.addTask {
                for await event in events { Self.print(event, format: format) }
            }
            group.addTask {
                var last: SyncStatus?
                for await status in statuses where status != last {
                    last = status
                    switch status {
                    case .offline(let pending): Console.error("offline: \(pending) \(pending == 1 ? "change" : "changes") kept in the outbox")
                    case .error(let message, _): Console.error("error: \(message)")
                    case .synced(_, let wrongClocks) where !wrongClocks.isEmpty:
                        Console.error("warning: wrong clocks: \(wrongClocks.joined(separator: ", ")) (taken in without moving this device's clock)")
                    default: break
                    }
                }
            }
            // Saves another process makes to this store (engine position save) are published
            // too: a new write at the end of the outbox (named by its stamp) starts a round. The
            // store's folder says when the store is written; a check every second covers file
            // systems that send no notifications.
            group.addTask {
                let bell = Doorbell()
                let path = URL(fileURLWithPath: store.path)
                let name = path.lastPathComponent
                let notifications = FolderNotifications(path: path.deletingLastPathComponent().path) { changed in
                    if changed.map({ $0.hasPrefix(name) }) ?? true { Task { await bell.ring() } }
                }
                let ticker = Task {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(1))
                        await bell.ring()
                    }
                }
                var published: String?
                while !Task.isCancelled {
                    if let problem = store.fileProblem {
                        storeGone.withLock { $0 = problem }
                        stop.open()
                        break
                    }
                    let newest = (try? await store.sync.pendingWrites().last?.stamp) ?? nil
                    if let newest, newest != published { coordinator.localChange() }
                    published = newest
                    await bell.wait()
                }
                ticker.cancel()
                notifications?.cancel()
            }
            // Outside the group, which ends only when its tasks do: the wait for a signal does
            // not end before one comes, and the command ends right after.
            Task {
                await Self.waitForInterrupt()
                stop.open()
            }
            await stop.wait()
            coordinator.shutdown()
            group.cancelAll()
        }
        if let problem = storeGone.withLock({ $0 }) {
            throw CommandFailure(
                .failed, "\(store.path): error: \(problem); stopped watching: run engine sync watch again to watch the file now there")
        }
        Console.error("stopped")
    }

    /// Returns at the first SIGINT or SIGTERM.
    static func waitForInterrupt() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let fired = SignalLatch()
            var sources: [any DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    if fired.fire() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            // The sources live as long as the process: the command ends right after.
            KeptUntilExit.shared.keep(sources)
        }
    }

    /// One line for `event`.
    static func print(_ event: RemotePositionEvent, format: TextOrJSON) {
        switch format {
        case .text:
            Console.out(
                "\(Timestamp.format(Date())) \(event.account) / \(event.timeline): post \(event.postId) from \(event.device), saved \(Timestamp.format(event.savedAt)) (\(event.reason))"
            )
        case .json:
            let value = Value.dictionary([
                ("at", .string(Timestamp.format(Date()))), ("account", .string(event.account)), ("timeline", .string(event.timeline)),
                ("postId", .string(event.postId)), ("device", .string(event.device)), ("savedAt", .string(Timestamp.format(event.savedAt))),
                ("action", .string(event.action == .move ? "move" : "suggest")), ("reason", .string(event.reason)),
            ])
            // A watch goes on after a line it cannot print, and says so.
            do { try Console.json(value, pretty: false) } catch { Console.error(error.description) }
        }
    }
}

/// True the first time only, from any thread.
final class SignalLatch: Sendable {
    private let fired = Locked(false)

    /// True the first time it is called.
    func fire() -> Bool {
        fired.withLock { fired in
            defer { fired = true }
            return !fired
        }
    }
}
