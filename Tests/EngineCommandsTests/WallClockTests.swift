import Foundation
import Testing
import TimelineEngineTestSupport

/// Store-writing commands with the device's wall clock behind or ahead (a wrong clock, or an NTP
/// step): every wait is on the monotonic clock, so each command exits as soon as it is done. The
/// wall clock is moved by `Tests/Fixtures/wall-clock/wall-clock-offset.c`, loaded with
/// `LD_PRELOAD`, which leaves the monotonic clock and its timers alone.
@Suite("A wall clock set wrong", .timeLimit(.minutes(10)))
struct WallClockTests {
    /// `clang` on the path, which builds the wall clock's library.
    static let clang: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/clang" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A command that waited on the wall clock would wait as long as the clock is off (30 s and
    /// more); the commands here take a fraction of a second.
    static let bound: Double = 25

    @Test(
        "position save, sync run and position forget exit once done with the wall clock 30 s, 10 min or 1 h behind or ahead",
        .enabled(if: clang != nil, "needs clang to build the wall clock's library"))
    func storeWritingCommandsExit() async throws {
        #if os(Linux)
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = directory.appendingPathComponent("libwall-clock-offset.so")
        let built = try await ChildProcess.run(
            URL(fileURLWithPath: Self.clang!),
            ["-shared", "-fPIC", "-O2", Fixtures.repositoryURL("Tests/Fixtures/wall-clock/wall-clock-offset.c").path, "-o", library.path, "-ldl"],
            in: directory, timeout: 120)
        try #require(built.status == 0, "\(built.stderr)")
        let config = directory.appendingPathComponent("sync.json").path
        try #"{"PositionPersistence": {"CrossSessionSync": true}, "Sync": {"Transport": {"Strategy": "Directory", "Path": "shared"}}}"#
            .write(toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)

        func engine(_ arguments: [String], offset: Int) async throws -> ChildProcess.Result {
            let environment = ["LD_PRELOAD": library.path, "WALL_CLOCK_OFFSET_SECONDS": "\(offset)"]
            return try await ChildProcess.run(EngineProcess.executable, arguments, in: directory, environment: environment, timeout: Self.bound)
        }

        // The library moves the wall clock: a save an hour behind says so. (Two wall-clock
        // readings compared on purpose: what is measured is the wall clock's offset, not a wait.)
        let first = try await engine(["position", "save", "--store", "check.sqlite", "--device", "phone", "--post", "1"], offset: -3600)
        try #require(first.status == 0, "\(first.stderr)")
        let shown = try await engine(["position", "show", "--store", "check.sqlite", "--format", "json"], offset: 0)
        let object = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let savedAt = try #require((object?["savedAt"] as? String).flatMap { parser.date(from: $0) }, "\(shown.stdout)")
        #expect(abs(savedAt.timeIntervalSinceNow + 3600) < 600, "saved at \(savedAt)")

        for (round, offset) in [-30, -600, -3600, 30, 600, 3600].enumerated() {
            for arguments in [
                ["position", "save", "--store", "phone.sqlite", "--config", config, "--device", "phone", "--post", "\(10 + round)"],
                ["sync", "run", "--store", "phone.sqlite", "--config", config, "--device", "phone"],
                ["sync", "run", "--store", "laptop.sqlite", "--config", config, "--device", "laptop"],
                ["position", "save", "--store", "laptop.sqlite", "--config", config, "--device", "laptop", "--post", "\(20 + round)"],
                ["position", "forget", "--store", "laptop.sqlite", "--config", config, "--device", "laptop"],
            ] {
                let result = try await engine(arguments, offset: offset)
                #expect(result.status == 0, "engine \(arguments.joined(separator: " ")) with the wall clock \(offset) s off: \(result.stderr)")
            }
        }
        // And the laptop heard the phone's last save.
        let laptop = try await engine(["sync", "run", "--store", "laptop.sqlite", "--config", config, "--device", "laptop"], offset: 0)
        #expect(laptop.status == 0, "\(laptop.stderr)")
        #endif
    }
}
