import Foundation
import Testing
import TimelineEngineTestSupport

/// A store this user may not write (another user's, or made read-only by its permissions): the
/// reading commands read it, a change says why it cannot be made. Root may write anything, so
/// as root the engine runs as `nobody` (`setpriv`); elsewhere it runs as the user.
@Suite("A store this user may not write", .timeLimit(.minutes(10)))
struct StorePermissionTests {
    /// `engine ARGUMENTS` as a user the store's permissions apply to.
    static func runAsOther(_ arguments: [String]) async throws -> ChildProcess.Result {
        if getuid() == 0 {
            // An engine built for coverage writes its counters when it exits; `nobody` may not
            // write the run's counters folder, and the runtime would say so on stderr.
            var environment: [String: String] = [:]
            if ProcessInfo.processInfo.environment["LLVM_PROFILE_FILE"] != nil {
                environment["LLVM_PROFILE_FILE"] = "/dev/null"
            }
            return try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/setpriv"),
                ["--reuid=65534", "--regid=65534", "--clear-groups", EngineProcess.executable.path] + arguments,
                in: Fixtures.repository, environment: environment)
        }
        return try await EngineProcess.run(arguments)
    }

    @Test(
        "a store read-only by its permissions is read (positions, history, timeline), and a save says why it cannot be made",
        .enabled(if: getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func readOnlyByPermissions() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer {
            chmod(directory.path, 0o700)
            try? FileManager.default.removeItem(at: directory)
        }
        let store = try await StoreMediaTests.reader(on: directory)
        for file in [store, store + "-wal", store + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(chmod(file, 0o444) == 0)
        }
        #expect(chmod(directory.path, 0o555) == 0)
        let shown = try await Self.runAsOther(["position", "show", "--store", store])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.hasPrefix("default / home: post 1,"), "\(shown.stdout)")
        let history = try await Self.runAsOther(["history", "--store", store])
        #expect(history.status == 0, "\(history.stderr)")
        let cached = try await Self.runAsOther(["timeline", "show", "--store", store])
        #expect(cached.status == 0, "\(cached.stderr)")
        #expect(cached.stdout.contains("one"))
        let save = try await Self.runAsOther(["position", "save", "--store", store, "--post", "2"])
        #expect(save.status == 2)
        #expect(save.stderr == "\(store): error: this user may not write the store (permission denied): it can be read, not changed\n")
        // The store is as it was.
        let after = try await EngineProcess.run(["position", "show", "--store", store])
        #expect(after.stdout == shown.stdout)
    }
}
