import Foundation
import Testing
import TimelineEnginePropertyList
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// Hostile documents: entities, DTDs, depth and size.
@Suite("Plist reader security", .timeLimit(.minutes(10)))
struct SecurityTests {
    @Test("an internal DTD subset is rejected before any entity is used")
    func internalSubset() {
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE plist [
            <!ENTITY xxe SYSTEM "file:///etc/passwd">
            ]>
            <plist><string>&xxe;</string></plist>
            """
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(Data(document.utf8)) }
        #expect(error?.message == "a DOCTYPE with an internal subset ([…]) is not allowed in property lists")
        #expect(error?.location?.line == 2)
    }

    @Test("billion laughs never expands")
    func billionLaughs() {
        var document = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n<!ENTITY lol \"lol\">\n"
        for level in 1...9 {
            document += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1 == 0 ? "" : String(level - 1));", count: 10) + "\">\n"
        }
        document += "]>\n<plist><string>&lol9;</string></plist>"
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(Data(document.utf8)) }
        #expect(error?.location?.line == 2)
    }

    @Test("an external DTD is never loaded and undeclared entities are errors")
    func externalDTD() {
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE plist SYSTEM "file:///etc/passwd">
            <plist><string>&passwd;</string></plist>
            """
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(Data(document.utf8)) }
        #expect(error?.message == "Entity 'passwd' not defined")
        #expect(error?.location?.line == 3)
    }

    @Test("Apple's DOCTYPE is accepted without fetching anything")
    func appleDoctype() throws {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><true/></plist>
            """
        #expect(try PropertyListReader().read(Data(document.utf8)) == .bool(true))
    }

    static func nested(_ depth: Int) -> String {
        String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
    }

    @Test("512 nested containers are accepted, 513 are not")
    func depth() throws {
        _ = try PropertyListReader().read(Data("<plist>\(Self.nested(512))</plist>".utf8))
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(Data("<plist>\(Self.nested(513))</plist>".utf8))
        }
        #expect(error?.message == "nesting too deep: more than 512 nested dictionaries and arrays")
    }

    @Test("100,000 nested elements fail cleanly")
    func absurdDepth() {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(Data("<plist>\(Self.nested(100_000))</plist>".utf8))
        }
        #expect(error?.location != nil)
    }

    @Test("the input size limit is enforced and configurable")
    func sizeLimit() throws {
        let document = Data("<plist><string>\(String(repeating: "x", count: 2000))</string></plist>".utf8)
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader(maximumInputSize: 1000).read(document)
        }
        #expect(error?.message == "input is \(document.count) bytes, more than the limit of 1000 bytes (maximumInputSize)")
        #expect(error?.location == nil)
        _ = try PropertyListReader(maximumInputSize: 4000).read(document)

        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("big.plist")
        try document.write(to: file)
        #expect(throws: PropertyListError.self) { try PropertyListReader(maximumInputSize: 1000).read(contentsOf: file) }
        #expect(PropertyListReader.defaultMaximumInputSize == 64 * 1024 * 1024)
    }

    @Test("a missing file is an error without a line")
    func missingFile() {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(contentsOf: URL(fileURLWithPath: "/nonexistent/file.plist"))
        }
        #expect(error?.message == "cannot read file: No such file or directory")
        #expect(error?.isUnreadable == true)
        #expect(error?.location == nil)
    }
}
