import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine timeline show --store PATH`: the cached timeline, in display order.
struct TimelineShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the cached timeline of a store, in display order, marking the reader's saved position.",
        discussion: """
            --format json writes the engine's timeline format, which engine restore --timeline reads.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, parsing: .unconditional, help: "Show at most this many posts (text only; 0 for all).")
    var limit: Int = 20

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if limit < 0 { throw ValidationError("--limit must be 0 (all) or more, got \(limit)") }
    }

    func run() async throws {
        let scope = scopeOptions.scope
        let (store, account, timelineName) = (storeOptions.store, scope.account, scope.timeline)
        let opened = try await storeOptions.open(create: false)
        let cached: TimelineStore.CachedTimeline?
        let saved: PositionSnapshot?
        let read: ReadPosts
        do {
            cached = try await opened.timelines.timeline(scope: scope)
            saved = try await opened.positions.history(scope: scope).first
            // What this device read, and what the other devices' positions say they read.
            let elsewhere = try await opened.sync.reads(scope: scope, elsewhereThan: try await opened.sync.storedDeviceId())
            read = try await opened.positions.readPosts(scope: scope).including(digests: elsewhere)
        } catch {
            throw CommandFailure(error)
        }
        guard let cached else {
            throw CommandFailure(
                .invalidInput, "\(store): error: no cached timeline for account \(Value.quote(account)), timeline \(Value.quote(timelineName))")
        }
        // "N new above you": the posts above the saved position the reader has not seen here or elsewhere.
        let savedIndex = saved.flatMap { saved in cached.posts.firstIndex { $0.id == saved.postId } }
        let unread = savedIndex.map { position in
            UnreadCount.above(
                position,
                in: TimelineIndex(Timeline(posts: cached.posts, viewportHeight: cached.viewportHeight ?? TimelineFormat.defaultViewportHeight)),
                read: read)
        }
        switch format {
        case .json:
            var members: [(String, Value)] = [
                ("account", .string(account)), ("timeline", .string(timelineName)),
                ("refreshedAt", cached.refreshedAt.map { .string(Timestamp.format($0)) } ?? .null),
                ("viewportHeight", .real(cached.viewportHeight ?? TimelineFormat.defaultViewportHeight)),
            ]
            members.append(("posts", .array(cached.posts.map(PostCoding.value(of:)))))
            members.append(("gaps", TimelineGap.jsonValue(cached.gaps)))
            if let saved, let savedIndex, let unread {
                members.append(
                    (
                        "savedPosition",
                        .dictionary([("postId", .string(saved.postId)), ("index", .integer(savedIndex)), ("unreadAbove", .integer(unread))])
                    ))
            }
            try Console.json(.dictionary(members))
        case .text:
            Console.out("\(account) / \(timelineName): " + TimelineFetchCommand.cacheLine(cached, now: Date()).dropFirst("cache: ".count))
            let shown = limit > 0 ? Array(cached.posts.prefix(limit)) : cached.posts
            let width = String(cached.posts.count).count
            // Ids, authors and texts are the server's: printed escaped, a line break included.
            let idWidth = shown.map { TerminalText.escaped($0.id).count }.max() ?? 0
            for (index, post) in shown.enumerated() {
                let marker = post.id == saved?.postId ? ">" : " "
                let number = String(index + 1).leftPadded(to: width)
                let text = TerminalText.escaped((post.text ?? "").replacingOccurrences(of: "\n", with: " "))
                let clipped = text.count > 60 ? text.prefix(59) + "…" : Substring(text)
                Console.out(
                    "\(marker) \(number)  \(TerminalText.escaped(post.id).leftPadded(to: idWidth))  \(Timestamp.format(post.createdAt))  \(post.author.map { "@\(TerminalText.escaped($0))" } ?? "-")  \(clipped)"
                )
                if index + 1 < cached.posts.count, cached.gapsBelow.contains(post.id) {
                    Console.out(
                        "  \(String(repeating: " ", count: width))  ⋮ gap: posts between \(TerminalText.escaped(post.id)) and \(TerminalText.escaped(cached.posts[index + 1].id)) were never loaded"
                    )
                }
            }
            if shown.count < cached.posts.count { Console.out("  … \(cached.posts.count - shown.count) more (--limit 0 shows all)") }
            if let gaps = GapText.line(cached.gaps) { Console.out(gaps) }
            if let saved {
                let place = cached.posts.firstIndex { $0.id == saved.postId }.map { "post \($0 + 1)" } ?? "a post no longer cached"
                Console.out("saved position: \(place) (\(TerminalText.escaped(saved.postId)))" + (unread.map { "; \($0) new above you" } ?? ""))
            }
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
