import Foundation
import Testing
import TimelineEnginePropertyList
import TimelineEngineValueTree

@Suite("Plist encodings and locations", .timeLimit(.minutes(10)))
struct EncodingAndLocationTests {
    static let text = "<?xml version=\"1.0\" encoding=\"%@\"?>\n<plist><string>café ✓</string></plist>"

    @Test("UTF-8 with and without BOM")
    func utf8() throws {
        let plain = Data(Self.text.replacingOccurrences(of: "%@", with: "UTF-8").utf8)
        #expect(try PropertyListReader().read(plain) == .string("café ✓"))
        #expect(try PropertyListReader().read(Data([0xEF, 0xBB, 0xBF]) + plain) == .string("café ✓"))
    }

    @Test("UTF-16 with BOM, both byte orders")
    func utf16() throws {
        let text = Self.text.replacingOccurrences(of: "%@", with: "UTF-16")
        for encoding in [String.Encoding.utf16BigEndian, .utf16LittleEndian] {
            let bom: [UInt8] = encoding == .utf16BigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
            let data = Data(bom) + text.data(using: encoding)!
            #expect(try PropertyListReader().read(data) == .string("café ✓"))
        }
    }

    @Test("a declared ISO-8859-1 encoding")
    func latin1() throws {
        let data = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><string>caf".utf8) + Data([0xE9]) + Data("</string></plist>".utf8)
        #expect(try PropertyListReader().read(data) == .string("café"))
    }

    @Test("bytes that are not UTF-8 are an error with a line")
    func invalidUTF8() {
        let data = Data("<plist>\n<string>".utf8) + Data([0xFF, 0xFE, 0x41]) + Data("</string></plist>".utf8)
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(data) }
        #expect(error?.location?.line == 2)
    }

    @Test("every value keeps its line and column")
    func locations() throws {
        let document =
            "<plist>\n<dict>\n\t<key>Name</key>\n\t<string>x</string>\n    <key>List</key>\n    <array>\n        <integer>1</integer>\n    </array>\n</dict>\n</plist>"
        let root = try PropertyListReader().read(Data(document.utf8))
        let members = try #require(root.dictionaryValue)
        #expect(root.location == SourceLocation(line: 2, column: 1))
        #expect(members["Name"]?.keyLocation == SourceLocation(line: 3, column: 2))
        #expect(members["Name"]?.value.location == SourceLocation(line: 4, column: 2))
        #expect(members["List"]?.keyLocation == SourceLocation(line: 5, column: 5))
        #expect(members["List"]?.value.location == SourceLocation(line: 6, column: 5))
        #expect(members["List"]?.value.arrayValue?.first?.location == SourceLocation(line: 7, column: 9))
    }

    @Test("lines above 65535 are exact")
    func bigLines() throws {
        let document = "<plist><array>" + String(repeating: "\n", count: 70_000) + "<true/></array></plist>"
        let root = try PropertyListReader().read(Data(document.utf8))
        #expect(root.arrayValue?.first?.location?.line == 70_001)
    }
}
