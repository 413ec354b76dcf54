import Foundation
import Testing
import TimelineEngineJSONText
import TimelineEngineTestSupport

/// `engine sync watch`: two watchers as two devices' apps, a save on one heard by the other
/// while both run, over a shared folder and over `engine serve`, through a server restart.
@Suite("engine sync watch", .timeLimit(.minutes(10)))
struct SyncWatchCommandTests {
    /// A running `engine sync watch` for `device`, printing JSON lines.
    static func watch(_ device: String, in directory: URL, config: String, environment: [String: String] = [:]) async throws -> BackgroundProcess {
        let watcher = try BackgroundProcess(
            EngineProcess.executable,
            [
                "sync", "watch", "--store", "\(device).sqlite", "--config", config, "--device", device,
                "--format", "json",
            ],
            in: directory, environment: environment, captureOutput: true)
        try await watcher.waitForOutput("\(device)'s watch to start") { $0.contains("watching \(device) with ") }
        return watcher
    }

    /// The post ids the watcher printed, in order.
    static func heard(_ watcher: BackgroundProcess) throws -> [String] {
        try watcher.stdout.split(separator: "\n").map { line in try JSONReader().read(Data(line.utf8))["postId"]?.stringValue ?? "" }
    }

    static func save(_ device: String, post: String, minute: Int, in directory: URL, config: String, environment: [String: String] = [:]) async throws
    {
        let result = try await EngineProcess.run(
            [
                "position", "save", "--store", "\(device).sqlite", "--config", config, "--device", device,
                "--post", post, "--created-at", String(format: "2026-11-24T08:%02d:00Z", minute),
            ],
            in: directory, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A new folder with a `shared` folder and `sync.json`, which syncs through it at once.
    static func sharedFolder() throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
        try
            #"{"PositionPersistence": {"CrossSessionSync": true}, "Sync": {"Transport": {"Strategy": "Directory", "Path": "shared"}, "DebounceInterval": 0}}"#
            .write(to: directory.appendingPathComponent("sync.json"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test("over a shared folder: each save is heard by the other watcher within seconds, with who and why; SIGINT stops both cleanly")
    func folder() async throws {
        let directory = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = "sync.json"
        let phone = try await Self.watch("phone", in: directory, config: config)
        let laptop = try await Self.watch("laptop", in: directory, config: config)
        try await Self.save("laptop", post: "41", minute: 1, in: directory, config: config)
        try await Deadline.wait(seconds: 60, "the phone to hear post 41") { try Self.heard(phone) == ["41"] }
        try await Self.save("phone", post: "42", minute: 2, in: directory, config: config)
        try await Deadline.wait(seconds: 60, "the laptop to hear post 42") { try Self.heard(laptop) == ["42"] }
        let line = try JSONReader().read(Data(laptop.stdout.split(separator: "\n")[0].utf8))
        #expect(line["device"]?.stringValue == "phone")
        #expect(line["action"]?.stringValue == "suggest")
        #expect(line["reason"]?.stringValue == "one live head: it saw the others")
        for watcher in [phone, laptop] {
            let stopped = try await watcher.stop(signal: SIGINT)
            #expect(stopped.status == 0)
            #expect(stopped.stderr.hasSuffix("stopped\n"))
        }
        #expect(try Self.heard(phone) == ["41"], "a device's own save is no remote change")
    }

    @Test("a store deleted or replaced under the watch stops it with an error naming what happened, not silently writing where no one reads")
    func storeReplaced() async throws {
        let directory = try Self.sharedFolder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = "sync.json"
        try await Self.save("tablet", post: "7", minute: 1, in: directory, config: config)
        let cases = [
            ("moved", "the store's file is gone (deleted or moved away)"),
            ("replaced", "the store's file was replaced by another (moved or copied over it)"),
        ]
        for (what, problem) in cases {
            let watcher = try await Self.watch("phone", in: directory, config: config)
            let store = directory.appendingPathComponent("phone.sqlite")
            let aside = directory.appendingPathComponent("phone-\(what).sqlite")
            if what == "moved" {
                try FileManager.default.moveItem(at: store, to: aside)
            } else {
                // A copy renamed over the path in one step, so the path never names nothing.
                try FileManager.default.copyItem(at: directory.appendingPathComponent("tablet.sqlite"), to: aside)
                #expect(rename(aside.path, store.path) == 0)
            }
            try await watcher.waitForOutput("the watch to notice the store \(what)") { $0.contains("stopped watching") }
            let stopped = try await watcher.stop()
            #expect(stopped.status == 1)
            #expect(
                stopped.stderr.hasSuffix(
                    "phone.sqlite: error: \(problem); stopped watching: run engine sync watch again to watch the file now there\n"),
                "\(stopped.stderr)")
            if what == "moved" { try FileManager.default.moveItem(at: aside, to: store) }
        }
    }

    #if SyncServer
    @Test("over engine serve: heard through the long-poll; through a server restart the watchers reconnect and miss nothing")
    func server() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverStore = directory.appendingPathComponent("server.sqlite").path
        let token = try #require(
            try await EngineProcess.run(["serve", "token", "create", "--store", serverStore, "--user", "alice"])
                .stdout.split(separator: "\n").last.map(String.init))
        var server = try await RunningServer(["--store", serverStore])
        let port = server.port
        let config = "sync.json"
        try """
        {"PositionPersistence": {"CrossSessionSync": true}, "Network": {"Policy": {"Strategy": "NoRetry"}},
         "Sync": {"Transport": {"Strategy": "HTTP", "URL": "\(server.url)", "PollInterval": 20}, "DebounceInterval": 0}}
        """.write(to: directory.appendingPathComponent(config), atomically: true, encoding: .utf8)
        let environment = ["ENGINE_SYNC_TOKEN": token]
        let phone = try await Self.watch("phone", in: directory, config: config, environment: environment)
        let laptop = try await Self.watch("laptop", in: directory, config: config, environment: environment)
        try await Self.save("laptop", post: "51", minute: 1, in: directory, config: config)
        try await Deadline.wait(seconds: 60, "the phone to hear post 51") { try Self.heard(phone) == ["51"] }
        // The server goes down while both wait on their long-polls; a save meanwhile waits in
        // the laptop's outbox.
        let stopped = try await server.stop()
        #expect(stopped.status == 0)
        try await Self.save("laptop", post: "52", minute: 2, in: directory, config: config)
        try await Deadline.wait(seconds: 60, "the laptop to notice") { laptop.stderr.contains("offline: 1 change kept in the outbox") }
        server = try await RunningServer(["--store", serverStore], port: port)
        try await Deadline.wait(seconds: 60, "the phone to hear post 52 after the restart") { try Self.heard(phone) == ["51", "52"] }
        try await Self.save("phone", post: "53", minute: 3, in: directory, config: config)
        try await Deadline.wait(seconds: 60, "the laptop to hear post 53") { try Self.heard(laptop) == ["53"] }
        for watcher in [phone, laptop] { #expect(try await watcher.stop(signal: SIGINT).status == 0) }
        _ = try await server.stop()
    }
    #endif
}
