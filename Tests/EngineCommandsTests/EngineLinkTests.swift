import Foundation
import Testing

#if os(Linux) && NIOClient
/// How the `engine` executable links on Linux (Package.swift's `engineLinkerSettings`): what makes
/// `engine validate` start about as soon as `plutil -lint` (docs/PERFORMANCE.md).
@Suite("The engine executable's links", .timeLimit(.minutes(2)))
struct EngineLinkTests {
    @Test("on Linux the engine links the Swift runtime and Foundation in, and loads no libcurl")
    func runtimeLinkedIn() async throws {
        // The loader lists the shared libraries it would load, and runs nothing.
        let listed = try await EngineProcess.run([], environment: ["LD_TRACE_LOADED_OBJECTS": "1"], timeout: 60)
        #expect(listed.status == 0)
        let libraries = listed.stdout.split(separator: "\n").compactMap {
            $0.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
        }
        #expect(libraries.contains { $0.hasPrefix("libxml2.so") }, "\(libraries)")
        for absent in ["libswiftCore.so", "libFoundation.so", "libFoundationEssentials.so", "libFoundationNetworking.so", "libcurl"] {
            #expect(!libraries.contains { $0.hasPrefix(absent) }, "\(absent) in \(libraries)")
        }
    }
}
#endif
