import Foundation

/// Builds what the tests load from outside the package: the example packages under `Examples/`
/// (with `swift build`, once per test run) and C plugins (with `clang`). Every build is a child
/// process run off the cooperative threads, with a deadline (`ChildProcess`).
public enum ExampleBuilds {
    /// One build per package per run, shared by the tests that ask at once.
    private actor Cache {
        var builds: [String: Task<URL, any Error>] = [:]

        func build(_ package: String) -> Task<URL, any Error> {
            if let running = builds[package] { return running }
            let task = Task { try await ExampleBuilds.buildNow(package) }
            builds[package] = task
            return task
        }
    }
    private static let cache = Cache()

    /// The longest a build may take: a first build of an example compiles the engine too.
    static let buildDeadline = 1_500.0

    /// The file name a shared library `name` has on this platform.
    public static func sharedLibrary(_ name: String) -> String {
        #if os(macOS)
        return "lib\(name).dylib"
        #else
        return "lib\(name).so"
        #endif
    }

    /// Builds `Examples/<package>` in debug mode, once per test run, and returns its products'
    /// folder.
    public static func build(_ package: String) async throws -> URL {
        try await cache.build(package).value
    }

    static func buildNow(_ package: String) async throws -> URL {
        let path = Fixtures.repositoryURL("Examples/\(package)").path
        do {
            try await run("swift", ["build", "--package-path", path], timeout: buildDeadline)
        } catch {
            // SwiftPM's incremental build of a package that depends on this one by path can miss
            // a module added here since; a clean build of the example does not.
            try? FileManager.default.removeItem(atPath: path + "/.build")
            try await run("swift", ["build", "--package-path", path], timeout: buildDeadline)
        }
        let printed = try await run("swift", ["build", "--package-path", path, "--show-bin-path"], timeout: 300)
        let binPath = printed.split(separator: "\n").last.map(String.init) ?? ""
        return URL(fileURLWithPath: binPath)
    }

    /// Compiles the C plugin `source` against the plugin header, with `defines`, into `output`.
    public static func compilePlugin(_ source: URL, defines: [String] = [], output: URL) async throws {
        try await run(
            "clang",
            ["-shared", "-fPIC", "-I", Fixtures.repositoryURL("Sources/TimelineEngineCPlugin/include").path]
                + defines.map { "-D\($0)" } + [source.path, "-o", output.path], timeout: 300)
    }

    /// Runs a tool found on the PATH, at the lowest CPU priority; its standard output, or an
    /// error with what it printed. An example's first build compiles the whole engine again for
    /// minutes; at normal priority it would take both cores from the tests running beside it,
    /// which then miss their deadlines. An example builds the engine as an app would, without
    /// the coverage instrumentation of the tests' own build (`ENGINE_COVERAGE`, Package.swift).
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], timeout: Double) async throws -> String {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["-u", "ENGINE_COVERAGE", "nice", "-n", "19", tool] + arguments,
            in: Fixtures.repository, timeout: timeout)
        guard result.status == 0 else {
            throw BuildError(description: "\(tool) \(arguments.joined(separator: " ")) failed:\n\(result.stdout)\(result.stderr)")
        }
        return result.stdout
    }

    public struct BuildError: Error, CustomStringConvertible {
        public let description: String
    }
}
