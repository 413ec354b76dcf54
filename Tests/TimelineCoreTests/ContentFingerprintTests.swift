import PropertyBased
import Testing
import TimelineEngineTestSupport

@testable import TimelineEngineCore

/// A post's words as `ContentFingerprint` hashes them: an all-ASCII text is read byte by byte
/// (`asciiWords`), any other as characters (`words`); both give the same hashes.
@Suite("Content fingerprint", .timeLimit(.minutes(10)))
struct ContentFingerprintTests {
    /// Pieces a text is made of: words in both cases, digits, links, punctuation and every
    /// ASCII whitespace, the carriage return and line feed pair among them.
    static let pieces = [
        "Day", "day", "12", "of", "30", "HTTPS://example.com/a", "http", "httpx", "Http:", "htt", "x-ray", "can't", "(see)", "#tag",
        "@ann", "a1b2", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{0B}", "\u{0C}", ".", ",", "!", "\u{1F}", "_", "~",
    ]

    @Test("an all-ASCII text's words hash as its characters' do")
    func asciiAsCharacters() async {
        await pinnedPropertyCheck(count: 500, input: Gen.int(in: 0...Int(Int32.max))) { seed in
            var state = UInt64(seed)
            var text = ""
            for _ in 0..<Int(seed % 24) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += Self.pieces[Int(state >> 33) % Self.pieces.count]
            }
            #expect(ContentFingerprint.asciiWords(text) == ContentFingerprint.words(text), "\(text.debugDescription)")
        }
    }

    @Test("a text with any other character is read as characters, and links are left out in any case")
    func otherTexts() {
        #expect(ContentFingerprint.asciiWords("café au lait") == nil)
        #expect(ContentFingerprint("café au lait") == ContentFingerprint(words: Array(ContentFingerprint.words("café au lait"))))
        #expect(
            ContentFingerprint("Day 12 of 30 HTTPS://example.com/x") == ContentFingerprint("day 12 of 30 https://example.com/y"))
        #expect(ContentFingerprint("two words") == nil)
        #expect(ContentFingerprint("Day 12 of 30")?.isRedraft(of: ContentFingerprint("Day 13 of 30")!) == false)
    }
}
