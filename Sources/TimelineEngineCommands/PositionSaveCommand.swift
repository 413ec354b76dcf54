import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine position save`: records a position as the app would, in the store and its outbox, in
/// one transaction.
struct PositionSaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Record a reading position in a store, as the app would: the register and the outbox in one transaction.",
        discussion: """
            The write becomes this device's head of the register: numbered by the device's \
            counter, stamped with the store's hybrid logical clock, and carrying what the store \
            has seen of the other devices (its causal context), so that it wins over every \
            write it saw. With --explicit it is a move back on purpose, which wins over \
            concurrent writes further along. --created-at (the post's creation time) lets the \
            merge policy compare progress; --unordered marks an algorithmic feed, compared by \
            time of writing only. --open-for and --moved-posts say how long the device had been \
            open and how far the reader had moved since, as the app reports them: a save soon \
            after opening that moved little is a glance, which loses to concurrent reading \
            under CausalFurthest.

            Example:
              engine position save --store phone.sqlite --account me \\
                --timeline-name home --post 42
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "The id of the post the reader is on.")
    var post: String

    @Option(name: .customLong("created-at"), help: "The post's creation time (RFC 3339).")
    var createdAt: String?

    @Option(name: .customLong("viewport-y"), help: "Where the post's top edge is in the viewport, in points.")
    var viewportY: Double = 0

    @Option(name: .customLong("saved-at"), help: "When the reader was there (RFC 3339); by default now.")
    var savedAt: String?

    @Flag(name: .long, help: "The reader moved back on purpose: this position wins over ones further along.")
    var explicit = false

    @Flag(name: .long, help: "The timeline is not chronological (an algorithmic feed).")
    var unordered = false

    @Option(name: .customLong("open-for"), help: "Seconds the device had been open when the reader was here (with --moved-posts).")
    var openFor: Double?

    @Option(name: .customLong("moved-posts"), help: "Posts the reader had moved since the device was opened (with --open-for).")
    var movedPosts: Int?

    @OptionGroup var sync: SyncOptions

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        var created: Date?
        if let createdAt {
            guard let date = Timestamp.parse(createdAt) else {
                throw CommandFailure(.usage, "error: --created-at must be an RFC 3339 timestamp in the years 1 to 9999 (UTC), found \(createdAt)")
            }
            created = date
        }
        var saved = Date()
        if let savedAt {
            guard let date = Timestamp.parse(savedAt) else {
                throw CommandFailure(.usage, "error: --saved-at must be an RFC 3339 timestamp in the years 1 to 9999 (UTC), found \(savedAt)")
            }
            saved = date
        }
        guard viewportY.isFinite else { throw CommandFailure(.usage, "error: --viewport-y must be a finite number") }
        var visit: PositionRecord.Visit?
        switch (openFor, movedPosts) {
        case (nil, nil): break
        case (let seconds?, let posts?):
            guard seconds.isFinite, seconds >= 0 else { throw CommandFailure(.usage, "error: --open-for must be a number of seconds, 0 or more") }
            guard posts >= 0 else { throw CommandFailure(.usage, "error: --moved-posts must be a number of posts, 0 or more") }
            visit = PositionRecord.Visit(seconds: seconds, posts: posts)
        default:
            throw CommandFailure(
                .usage, "error: --open-for and --moved-posts go together: how long the device was open, and how far the reader moved")
        }
        _ = try sync.components(try sync.configured())
        let store = try await storeOptions.open(create: true)
        let device = try await sync.deviceId(store)
        let snapshot = PositionSnapshot(postId: post, postCreatedAt: created, viewportY: viewportY)
        do {
            let record = try await store.sync.savePosition(
                snapshot, scope: scopeOptions.scope, device: device, explicit: explicit, ordered: !unordered,
                visit: visit, at: saved)
            Console.out("saved post \(post) for \(scopeOptions.account) / \(scopeOptions.timelineName) on \(device) at \(record.stamp.time)")
        } catch {
            throw CommandFailure(error)
        }
    }
}
