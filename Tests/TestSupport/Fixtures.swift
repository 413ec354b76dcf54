import Foundation

/// Paths to the repository's test fixtures and files, independent of the working directory.
public enum Fixtures {
    /// `Tests/Fixtures`.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The repository's top level.
    public static let repository: URL = root.deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the built products (executables the tests run), beside the test bundle.
    public static let productsDirectory: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: beside.appendingPathComponent("engine").path) { return beside }
        return repositoryURL(".build/debug")
    }()

    /// A file or folder under `Tests/Fixtures`.
    public static func url(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }

    /// A file or folder relative to the repository's top level.
    public static func repositoryURL(_ relativePath: String) -> URL {
        repository.appendingPathComponent(relativePath)
    }

    /// The files in a fixture folder whose names end in `suffix`, sorted by name.
    public static func files(in relativePath: String, withSuffix suffix: String) -> [URL] {
        let folder = url(relativePath)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// A fresh temporary directory, removed by the caller when done.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-engine-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
