import Foundation
import Testing
import TimelineEngineTestSupport

/// A store on a read-only file system, and on a full disk, as a reader's removable media and a
/// phone out of space have them: reading commands work, changing ones say why they cannot. The
/// file systems are small tmpfs mounts, so this runs where `mount` is allowed (as root on
/// Linux, as CI runs); elsewhere it is skipped.
@Suite("A store on read-only and full media", .serialized, .timeLimit(.minutes(10)), .enabled(if: MountPermission.granted))
struct StoreMediaTests {
    /// A 1 MiB tmpfs mounted on a new folder, unmounted and removed after `body`.
    static func withMount(_ body: (URL) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path])
        do {
            try await body(directory)
        } catch {
            _ = try? await ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [directory.path], in: directory.deletingLastPathComponent())
            throw error
        }
        _ = try await ChildProcess.run(URL(fileURLWithPath: "/bin/umount"), [directory.path], in: directory.deletingLastPathComponent())
    }

    /// A store on `media` with a cached timeline of one post ("one") and a position on it.
    static func reader(on media: URL) async throws -> String {
        let store = media.appendingPathComponent("reader.sqlite").path
        let timeline = media.appendingPathComponent("t.json")
        try Data(#"{"posts": [{"id": "1", "createdAt": "2026-08-01T12:00:00Z", "author": "a", "text": "one"}]}"#.utf8).write(to: timeline)
        #expect(try await EngineProcess.run(["timeline", "fetch", "--store", store, "--source", timeline.path]).status == 0)
        #expect(try await EngineProcess.run(["position", "save", "--store", store, "--post", "1", "--device", "phone"]).status == 0)
        return store
    }

    static func mount(_ arguments: [String]) async throws {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/bin/mount"), arguments, in: URL(fileURLWithPath: "/"))
        try #require(result.status == 0, "mount \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    @Test("on a read-only file system the store is read (positions, history, timeline), and a save says why it cannot be made")
    func readOnlyMedia() async throws {
        try await Self.withMount { media in
            let store = try await Self.reader(on: media)
            try await Self.mount(["-o", "remount,ro", media.path])
            let shown = try await EngineProcess.run(["position", "show", "--store", store])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.hasPrefix("default / home: post 1,"))
            let history = try await EngineProcess.run(["history", "--store", store])
            #expect(history.status == 0, "\(history.stderr)")
            let cached = try await EngineProcess.run(["timeline", "show", "--store", store])
            #expect(cached.status == 0, "\(cached.stderr)")
            #expect(cached.stdout.contains("one"))
            let save = try await EngineProcess.run(["position", "save", "--store", store, "--post", "2"])
            #expect(save.status == 2)
            #expect(save.stderr == "\(store): error: the store is on a read-only file system: it can be read there, not changed\n")
        }
    }

    @Test("on a full disk a save says the disk is full and loses nothing; reading still works")
    func fullDisk() async throws {
        try await Self.withMount { media in
            let store = try await Self.reader(on: media)
            // Fill what is left.
            let filler = media.appendingPathComponent("filler")
            _ = FileManager.default.createFile(atPath: filler.path, contents: nil)
            let handle = try FileHandle(forWritingTo: filler)
            let block = Data(count: 4096)
            while (try? handle.write(contentsOf: block)) != nil {}
            try? handle.close()
            let save = try await EngineProcess.run([
                "position", "save", "--store", store, "--post", String(repeating: "9", count: 400), "--device", "phone",
            ])
            #expect(save.status == 1)
            #expect(save.stderr == "\(store): error: the disk is full: nothing was written (free some space on the disk that holds the store)\n")
            let shown = try await EngineProcess.run(["position", "show", "--store", store])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.hasPrefix("default / home: post 1,"))
            let cached = try await EngineProcess.run(["timeline", "show", "--store", store])
            #expect(cached.status == 0, "\(cached.stderr)")
        }
    }
}

/// Whether this process may mount file systems: root on Linux.
enum MountPermission {
    static let granted: Bool = {
        #if os(Linux)
        return getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount")
        #else
        return false
        #endif
    }()
}
