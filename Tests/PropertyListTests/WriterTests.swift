import Foundation
import Testing
import TimelineEnginePropertyList
import TimelineEngineTestSupport
import TimelineEngineValueTree

@Suite("Plist writer", .timeLimit(.minutes(10)))
struct WriterTests {
    @Test("reproduces Apple's own file byte for byte")
    func appleFile() throws {
        let url = Fixtures.url("plist-corpus/valid/cpython-testdata.plist")
        let original = try Data(contentsOf: url)
        let value = try PropertyListReader().read(original)
        #expect(try PropertyListWriter().data(value) == original)
    }

    @Test("canonical layout: declaration, DOCTYPE, tabs, empty containers")
    func layout() throws {
        let value = Value.dictionary([
            ("a", .array([.integer(1), .dictionary([])])),
            ("b", .string("<&>\r")),
            ("c", .array([])),
        ])
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>a</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<dict/>
            \t</array>
            \t<key>b</key>
            \t<string>&lt;&amp;&gt;&#13;</string>
            \t<key>c</key>
            \t<array/>
            </dict>
            </plist>

            """
        let written = try PropertyListWriter().write(value)
        #expect(written == expected)
        #expect(try PropertyListReader().read(Data(written.utf8)) == value)
    }

    @Test("null and unrepresentable characters are errors naming the key path")
    func unrepresentable() {
        let null = #expect(throws: PropertyListError.self) {
            try PropertyListWriter().write(.dictionary([("a", .array([.null]))]))
        }
        #expect(null?.message == "null at a[0] has no property-list representation")
        let control = #expect(throws: PropertyListError.self) {
            try PropertyListWriter().write(.dictionary([("k", .string("\u{0}"))]))
        }
        #expect(control?.message == "string at k contains U+0000, which XML 1.0 cannot represent")
    }

    @Test("typed JSON round-trips every type")
    func typedJSON() throws {
        let document =
            "<plist><dict><key>d</key><date>1999-12-31T23:59:59Z</date><key>x</key><data>AAEC</data><key>n</key><integer>18446744073709551615</integer><key>r</key><real>0.1</real></dict></plist>"
        let value = try PropertyListReader().read(Data(document.utf8))
        let text = try TypedJSON.encode(value)
        #expect(
            text == """
                {"dict": [
                 ["d", {"date": "1999-12-31T23:59:59Z"}],
                 ["x", {"data": "AAEC"}],
                 ["n", {"integer": "18446744073709551615"}],
                 ["r", {"real": 0.1}]
                ]}

                """)
        #expect(try TypedJSON.decode(Data(text.utf8)) == value)
    }
}
