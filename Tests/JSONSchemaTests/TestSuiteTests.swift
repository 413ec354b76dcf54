import Foundation
import Testing
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The official JSON-Schema-Test-Suite files for draft 2020-12 in
/// `Tests/Fixtures/json-schema-test-suite` (see its README).
@Suite("JSON Schema test suite (draft 2020-12)", .timeLimit(.minutes(10)))
struct TestSuiteTests {
    static let files = Fixtures.files(in: "json-schema-test-suite/draft2020-12", withSuffix: ".json")

    struct Counts {
        var cases = 0
        var tests = 0
        var passed = 0
    }

    static func run(_ file: URL) throws -> (Counts, [String]) {
        let document = try JSONReader().read(Data(contentsOf: file))
        var counts = Counts()
        var failures: [String] = []
        for group in document.arrayValue ?? [] {
            counts.cases += 1
            let description = group["description"]?.stringValue ?? "?"
            let schema = try JSONSchema(group["schema"]!)
            for test in group["tests"]?.arrayValue ?? [] {
                counts.tests += 1
                let expected = test["valid"]?.boolValue ?? false
                let result = schema.validate(test["data"]!)
                if result.isValid == expected {
                    counts.passed += 1
                } else {
                    failures.append(
                        "\(file.lastPathComponent): \(description) / \(test["description"]?.stringValue ?? "?"): expected \(expected ? "valid" : "invalid"), issues: \(result.issues.map(\.description))"
                    )
                }
            }
        }
        return (counts, failures)
    }

    @Test("every case of every file", arguments: files)
    func file(_ file: URL) throws {
        let (_, failures) = try Self.run(file)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test("the whole suite, with counts")
    func wholeSuite() throws {
        var total = Counts()
        for file in Self.files {
            let (counts, _) = try Self.run(file)
            total.cases += counts.cases
            total.tests += counts.tests
            total.passed += counts.passed
        }
        print("JSON Schema test suite: \(Self.files.count) files, \(total.cases) cases, \(total.passed)/\(total.tests) tests passed")
        #expect(Self.files.count == 14)
        #expect(total.tests == 355)
        #expect(total.passed == total.tests)
    }
}
