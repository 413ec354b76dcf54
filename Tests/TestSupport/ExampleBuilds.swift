import Foundation

/// Builds what the tests load from outside the package: the example packages under `Examples/`
/// (with `swift build`, once per test run) and C plugins (with `clang`).
public enum ExampleBuilds {
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var built: [String: URL] = [:]
    }
    private static let cache = Cache()

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
    public static func build(_ package: String) throws -> URL {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let built = cache.built[package] { return built }
        let path = Fixtures.repositoryURL("Examples/\(package)").path
        do {
            try run("swift", ["build", "--package-path", path])
        } catch {
            // SwiftPM's incremental build of a package that depends on this one by path can miss
            // a module added here since; a clean build of the example does not.
            try? FileManager.default.removeItem(atPath: path + "/.build")
            try run("swift", ["build", "--package-path", path])
        }
        let printed = try run("swift", ["build", "--package-path", path, "--show-bin-path"])
        let binPath = printed.split(separator: "\n").last.map(String.init) ?? ""
        let folder = URL(fileURLWithPath: binPath)
        cache.built[package] = folder
        return folder
    }

    /// Compiles the C plugin `source` against the plugin header, with `defines`, into `output`.
    public static func compilePlugin(_ source: URL, defines: [String] = [], output: URL) throws {
        try run("clang", ["-shared", "-fPIC", "-I", Fixtures.repositoryURL("Sources/CTimelinePlugin/include").path]
                + defines.map { "-D\($0)" } + [source.path, "-o", output.path])
    }

    /// Runs a tool found on the PATH; its standard output, or an error with what it printed.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("example-build-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw BuildError(description: "\(tool) \(arguments.joined(separator: " ")) failed:\n\(text)")
        }
        return text
    }

    public struct BuildError: Error, CustomStringConvertible {
        public let description: String
    }
}
