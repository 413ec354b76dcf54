import Foundation
import Testing
import TimelineEngineTestSupport

/// The README's "Embedding it in an app": its lines are `Examples/PackageStrategy`'s
/// `embedding-demo` (main.swift word for word, and the same product in its Package.swift), which
/// is built here as an app would build it and run.
@Suite("The README's embedding lines build and run", .serialized, .timeLimit(.minutes(30)))
struct EmbeddingReadmeTests {
    /// The README's code block after `marker`.
    static func block(after marker: String) throws -> String {
        let readme = try String(contentsOf: Fixtures.repositoryURL("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: marker + "\n\n```swift\n"))
        let end = try #require(readme.range(of: "```\n", range: start.upperBound..<readme.endIndex))
        return String(readme[start.upperBound..<end.lowerBound])
    }

    @Test("main.swift is the README's lines, and the package takes the product the README names")
    func sameLines() throws {
        let main = try String(
            contentsOf: Fixtures.repositoryURL("Examples/PackageStrategy/Sources/embedding-demo/main.swift"), encoding: .utf8)
        #expect(main == (try Self.block(after: "Then, in the app:")))
        let manifest = try Self.block(after: "so it builds beside any other package):")
        let example = try String(contentsOf: Fixtures.repositoryURL("Examples/PackageStrategy/Package.swift"), encoding: .utf8)
        let product = #".product(name: "TimelineEngine", package: "TimelineEngine")"#
        #expect(manifest.contains(product))
        #expect(example.contains(product))
    }

    @Test("built as an app builds it, it saves the reader's place and restores it after a refresh")
    func runs() async throws {
        let folder = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChildProcess.run(
            try await ExampleBuilds.build("PackageStrategy").appendingPathComponent("embedding-demo"),
            ["config/SocialFusionTimelineConfiguration.plist", "Tests/Fixtures/restore/timeline.jsonl", folder.path],
            in: Fixtures.repository)
        #expect(result.status == 0, "\(result.stderr)")
        // Post 10 of the timeline, two new posts (92 points each) further down after the refresh.
        #expect(result.stdout == "restored silently at offset 1684.0\n")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("timeline.sqlite").path))
    }
}
