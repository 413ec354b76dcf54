#if SyncServer
import Foundation
@testable import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport

/// The server's SQLite checkpoints: on a connection of their own, never in a commit.
@Suite("Background checkpoint", .timeLimit(.minutes(10)))
struct BackgroundCheckpointTests {
    /// A storage in a fresh directory with one user, and that user.
    static func storage(_ directory: URL, interval: Duration) async throws -> (SQLiteRegisterStorage, StoredUser) {
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path, checkpointInterval: interval)
        _ = try await storage.addToken(hash: [1, 2, 3], user: "alice", at: Date())
        return (storage, try #require(try await storage.user(forTokenHash: [1, 2, 3])))
    }

    static func head(_ number: Int) -> StoredHead {
        try! StoredHead(ServerHarness.write("p\(number)", seq: UInt64(number), millis: UInt64(1_000 + number), device: "d\(number % 40)"))
    }

    @Test("the writer never checkpoints: with the background one held back, the WAL grows past SQLite's 1,000 pages")
    func writerDoesNotCheckpoint() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (storage, user) = try await Self.storage(directory, interval: .seconds(3_600))
        for number in 1...1_200 { _ = try await storage.merge([Self.head(number)], user: user) }
        try await storage.checkpoint.settled()
        // The token's commit started the only checkpoint the hour allows.
        #expect(storage.checkpoint.progress.completed == 1)
        let wal = try FileManager.default.attributesOfItem(atPath: storage.path + "-wal")[.size] as? Int ?? 0
        #expect(wal > 1_100 * 4_096, "WAL of \(wal) bytes")
        #expect(try await storage.read(user: user, since: nil).records.count == 40)
    }

    @Test("after commits, a checkpoint on its own connection copies every frame of the WAL back")
    func backgroundCopiesEverything() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (storage, user) = try await Self.storage(directory, interval: .zero)
        for number in 1...200 { _ = try await storage.merge([Self.head(number)], user: user) }
        try await storage.checkpoint.settled()
        // Nothing runs now, so this commit starts one that sees every frame.
        _ = try await storage.merge([Self.head(201)], user: user)
        try await storage.checkpoint.settled()
        let progress = storage.checkpoint.progress
        #expect(!progress.running)
        #expect(progress.completed >= 2)
        let last = try #require(progress.last)
        #expect(last.walFrameCount > 0)
        #expect(last.checkpointedFrameCount == last.walFrameCount)
        #expect(try await storage.read(user: user, since: nil).records.count == 40)
    }
}
#endif
