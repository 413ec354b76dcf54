import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSupport
import TimelineEngineTestSupport

@testable import TimelineEngineStore

/// One database per file and process. A second pool on a file the process already has open
/// once read the file's header through a descriptor of its own, and closing it dropped every
/// POSIX lock the first pool held: another process's writes then went into the file unlocked,
/// and writes were lost or the file damaged (the two-process reopen test in TimelineStoreTests
/// lost writes that way).
@Suite("Store database", .timeLimit(.minutes(10)))
struct StoreDatabaseTests {
    @Test("two stores on one file, by any path, share its database; once both are gone it is opened anew")
    func oneDatabasePerFile() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.sqlite").path
        let link = directory.appendingPathComponent("link.sqlite").path
        var first: TimelineStore? = try await TimelineStore(path: path)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        let second = try await TimelineStore(path: link)
        let third = try await TimelineStore(path: directory.path + "/./t.sqlite")
        #expect(first?.database === second.database)
        #expect(first?.database === third.database)
        try await second.positions.saveSnapshot(PositionSnapshot(postId: "p1", savedAt: Date()), scope: StoreScope())
        #expect(try await first?.positions.history(scope: StoreScope()).map(\.postId) == ["p1"])
        first = nil
        let reopened = try await TimelineStore(path: path)
        #expect(reopened.database === second.database, "still open through the others")
        #expect(try await reopened.positions.history(scope: StoreScope()).map(\.postId) == ["p1"])
    }

    /// Opens once took one turn for the whole process: a store whose open waited (for another
    /// process's lock, up to `TimelineStore.busyTimeout`) held up the opening of every other
    /// store (in a loaded test run, short store suites waited 30 to 40 s for their stores).
    /// Opens of one file still take turns.
    @Test("an open held in its turn holds up no open of another store")
    func opensOfOtherFilesGoOn() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let held = URL(fileURLWithPath: directory.appendingPathComponent("held.sqlite").path).standardizedFileURL
            .resolvingSymlinksInPath().path
        let (entered, enter) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        StoreDatabase.beforeOpening.withLock { hook in
            hook = { path in
                guard path == held else { return }
                enter.yield()
                for await _ in released { break }
            }
        }
        defer { StoreDatabase.beforeOpening.withLock { $0 = nil } }
        let waiting = Task { try await TimelineStore(path: held) }
        for await _ in entered { break }
        // The held store's open is in its turn; another store opens meanwhile. Were it to wait
        // for that turn, the held open is let go at the deadline so that the test ends.
        let other = directory.appendingPathComponent("other.sqlite").path
        let opened = Locked(false)
        let opening = Task {
            _ = try await TimelineStore(path: other)
            opened.withLock { $0 = true }
        }
        do {
            try await Deadline.wait(seconds: 30, "another store's open while one is held") { opened.withLock { $0 } }
        } catch {
            release.finish()
            throw error
        }
        release.finish()
        try await opening.value
        _ = try await waiting.value
    }

    @Test("close() writes the WAL into the file; a closed store says so, and the file opens anew")
    func closeAll() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("c.sqlite").path
        let store = try await TimelineStore(path: path)
        try await store.positions.saveSnapshot(PositionSnapshot(postId: "p1", savedAt: Date()), scope: StoreScope())
        await store.close()
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0, "the WAL is checkpointed into the file")
        await #expect(throws: StoreError(path: path, "the store was closed")) {
            try await store.positions.history(scope: StoreScope())
        }
        let reopened = try await TimelineStore(path: path)
        #expect(reopened.database !== store.database)
        #expect(try await reopened.positions.history(scope: StoreScope()).map(\.postId) == ["p1"])
    }

    @Test("a short file that is not SQLite is refused by its header, and left as it is")
    func header() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("x.sqlite").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        await #expect(
            throws: StoreError(
                path: path, "not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is", kind: .notAStore)
        ) {
            try await TimelineStore(path: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("x".utf8))
    }

    @Test("a store path that is a FIFO, a device, a folder or a link to one, or a file unreadable from its start, is refused at once")
    func notRegularFiles() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("store.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let device = directory.appendingPathComponent("device.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: device, withDestinationPath: "/dev/null")
        let memory = directory.appendingPathComponent("memory.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: memory, withDestinationPath: "/proc/self/mem")
        var cases = [
            (fifo, "not a regular file (a pipe); a store is a regular file"),
            (device, "not a regular file (a device or socket); a store is a regular file"),
            (directory.path, "not a regular file (a directory); a store is a regular file"),
        ]
        if FileManager.default.fileExists(atPath: "/proc/self/mem") { cases.append((memory, "cannot read the store: Input/output error")) }
        for (path, message) in cases {
            await #expect(throws: StoreError(path: path, message, kind: .unusablePath)) { try await TimelineStore(path: path) }
            await #expect(throws: StoreError(path: path, message, kind: .unusablePath)) { try await TimelineStore(path: path, create: false) }
        }
        // Nothing was made of them.
        var info = stat()
        #expect(stat(fifo, &info) == 0 && Int(info.st_mode) & Int(S_IFMT) == Int(S_IFIFO))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: device) == "/dev/null")
    }
}
