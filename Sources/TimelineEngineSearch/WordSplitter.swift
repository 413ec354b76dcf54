import TimelineEngineCore

/// Splits texts into the text index's words: lower-cased runs of letters and digits of two or
/// more characters, and numbers of any length (`TextIndex.words(_:)`).
///
/// One splitter is reused from text to text. It keeps a scratch buffer for words that must be
/// lower-cased, and, once it has met enough non-ASCII characters to be worth it, a table of
/// what it learnt about each of them: looking up a scalar's Unicode properties costs far more
/// than the byte loop, and the curly quotes, dashes and accented letters of a feed come back
/// in post after post.
final class WordSplitter {
    /// Word bytes that are not the text's own: lower-cased, or extended after a lower-casing.
    private var scratch: UnsafeMutablePointer<UInt8>
    private var scratchCapacity: Int
    /// What is known of each scalar below `cachedScalars`, by `ScalarKind` raw value; nil until
    /// `uncachedLimit` scalars have been looked up without it.
    private var kinds: UnsafeMutablePointer<UInt8>?
    /// Non-ASCII scalars looked up without the table so far.
    private var uncached = 0

    /// Scalars below this (the Basic Multilingual Plane and the next, which holds emoji) are
    /// remembered once the table exists.
    static let cachedScalars = 0x2_0000

    /// How many non-ASCII scalars are looked up directly before the table is made: a query of
    /// a few words never pays for it.
    static let uncachedLimit = 256

    /// The most UTF-8 bytes one scalar's lower-case mapping takes (at most three scalars).
    private static let longestMapping = 12

    /// What a non-ASCII scalar is to the splitter.
    private enum ScalarKind: UInt8 {
        case unknown = 0
        /// Ends a word.
        case separator
        /// A letter that lower-cases to itself.
        case letter
        /// A numeric character that lower-cases to itself.
        case number
        /// A letter or number whose lower case is another scalar or several.
        case mapped
    }

    init() {
        scratchCapacity = 256
        scratch = .allocate(capacity: scratchCapacity)
    }

    deinit {
        scratch.deallocate()
        kinds?.deallocate()
    }

    /// Whether the splitter has made its table of scalars.
    var remembersScalars: Bool { kinds != nil }

    /// Calls `body` with the UTF-8 bytes of each of `text`'s words, in order. A word that is
    /// already lower case, most words of most feeds, is handed over where it lies in the text;
    /// any other is built in the scratch buffer. A run of lower-case ASCII letters and digits is
    /// read in a loop of its own, and only a byte of 0x80 or more is decoded into a scalar.
    func forEachWord(in text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        withoutActuallyEscaping(body) { body in
            var sink = ClosureSink(body: body)
            split(text, into: &sink)
        }
    }

    /// Hands each of `text`'s words to `sink`, as `forEachWord(in:_:)` does: a generic sink
    /// is called directly, where a closure is called through a context, word after word.
    func split<Sink: WordSink>(_ text: String, into sink: inout Sink) {
        var text = text
        text.withUTF8 { bytes in split(bytes, into: &sink) }
    }

    private func split<Sink: WordSink>(_ bytes: UnsafeBufferPointer<UInt8>, into sink: inout Sink) {
        guard let text = bytes.baseAddress else { return }
        let count = bytes.count
        // Copied or ASCII-lower-cased bytes never outgrow the text; only a mapping can (below).
        reserveScratch(count)
        var buffer = scratch
        // Scalars in the current word, whether its first one is numeric, where it starts, whether
        // it is still the text's own bytes (else it is in `buffer`), and its length there.
        var scalars = 0
        var firstIsNumeric = false
        var start = 0
        var inPlace = true
        var copied = 0
        var index = 0
        /// The word so far moves to `buffer`, to be lower-cased or extended there.
        func leavePlace() {
            if inPlace {
                copied = index - start
                buffer.update(from: text + start, count: copied)
                inPlace = false
            }
        }
        func endWord() {
            if scalars >= 2 || (scalars == 1 && firstIsNumeric) {
                sink.take(
                    inPlace ? UnsafeBufferPointer(start: text + start, count: index - start) : UnsafeBufferPointer(start: buffer, count: copied))
            }
            scalars = 0
        }
        /// Starts a word at `index` unless one is under way.
        func begin(numeric: Bool) {
            if scalars == 0 {
                firstIsNumeric = numeric
                start = index
                inPlace = true
            }
        }
        while index < count {
            let byte = text[index]
            if byte < 0x80 {
                if Self.isLowerOrDigit(byte) {
                    // The whole run of lower-case letters and digits at once: most of a word.
                    begin(numeric: byte <= 0x39)
                    let run = index
                    index += 1
                    while index < count && Self.isLowerOrDigit(text[index]) { index += 1 }
                    if !inPlace {
                        (buffer + copied).update(from: text + run, count: index - run)
                        copied += index - run
                    }
                    scalars += index - run
                    continue
                } else if byte >= 0x41 && byte <= 0x5A {
                    begin(numeric: false)
                    leavePlace()
                    buffer[copied] = byte + 0x20
                    copied += 1
                    scalars += 1
                } else {
                    endWord()
                }
                index += 1
                continue
            }
            // A scalar of two to four bytes (the text is valid UTF-8).
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            var value = UInt32(byte) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
            for offset in 1..<length where index + offset < count { value = value << 6 | UInt32(text[index + offset] & 0x3F) }
            let end = min(count, index + length)
            let kind = kind(of: value)
            switch kind {
            case .letter, .number:
                begin(numeric: kind == .number)
                if !inPlace {
                    (buffer + copied).update(from: text + index, count: end - index)
                    copied += end - index
                }
                scalars += 1
            case .mapped:
                begin(numeric: false)
                leavePlace()
                // Room for the mapping and for the rest of the text as it is.
                if copied + Self.longestMapping + (count - end) > scratchCapacity {
                    reserveScratch(copied + Self.longestMapping + count, keeping: copied)
                    buffer = scratch
                }
                for lower in Unicode.Scalar(value)!.properties.lowercaseMapping.unicodeScalars {
                    if scalars == 0 { firstIsNumeric = lower.properties.numericType != nil }
                    UTF8.encode(lower) { unit in
                        buffer[copied] = unit
                        copied += 1
                    }
                    scalars += 1
                }
            case .separator, .unknown:
                endWord()
            }
            index = end
        }
        endWord()
    }

    /// Whether `byte` is an ASCII lower-case letter or digit, in two comparisons.
    @inline(__always)
    private static func isLowerOrDigit(_ byte: UInt8) -> Bool {
        (byte &- 0x61) < 26 || (byte &- 0x30) < 10
    }

    /// Makes the scratch buffer hold at least `capacity` bytes, keeping its first `keeping`.
    private func reserveScratch(_ capacity: Int, keeping: Int = 0) {
        guard capacity > scratchCapacity else { return }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        grown.update(from: scratch, count: keeping)
        scratch.deallocate()
        scratch = grown
        scratchCapacity = capacity * 2
    }

    /// What scalar `value` is, from the table when it holds it.
    private func kind(of value: UInt32) -> ScalarKind {
        guard Int(value) < Self.cachedScalars else { return Self.lookUp(value) }
        guard let kinds else {
            uncached += 1
            if uncached >= Self.uncachedLimit {
                let table = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.cachedScalars)
                table.initialize(repeating: ScalarKind.unknown.rawValue, count: Self.cachedScalars)
                kinds = table
            }
            return Self.lookUp(value)
        }
        if let known = ScalarKind(rawValue: kinds[Int(value)]), known != .unknown { return known }
        let kind = Self.lookUp(value)
        kinds[Int(value)] = kind.rawValue
        return kind
    }

    /// What scalar `value` is, from its Unicode properties.
    private static func lookUp(_ value: UInt32) -> ScalarKind {
        guard let scalar = Unicode.Scalar(value) else { return .separator }
        let properties = scalar.properties
        let numeric = properties.numericType != nil
        guard properties.isAlphabetic || numeric else { return .separator }
        let lower = properties.lowercaseMapping.unicodeScalars
        guard lower.count == 1 && lower.first == scalar else { return .mapped }
        return numeric ? .number : .letter
    }
}

/// What a `WordSplitter` hands words to.
protocol WordSink {
    /// Takes one word's UTF-8 bytes, valid only for the call.
    mutating func take(_ word: UnsafeBufferPointer<UInt8>)
}

/// A closure as a `WordSink`.
private struct ClosureSink: WordSink {
    let body: (UnsafeBufferPointer<UInt8>) -> Void

    func take(_ word: UnsafeBufferPointer<UInt8>) { body(word) }
}
