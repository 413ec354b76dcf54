import TimelineEngineCore

/// The words of a run of texts, numbered within it: the first step of building a `TextIndex`,
/// one per part of the collection.
struct PartWords: Sendable {
    var table: WordTable
    /// Text `t`'s words are `words[textStarts[t]..<textStarts[t + 1]]`, each once, with its
    /// count in `counts`, in the order of their first use in the text.
    var textStarts: [Int]
    var words: [Int32]
    var counts: [Int32]

    var textCount: Int { textStarts.count - 1 }

    init(_ texts: ArraySlice<String>) {
        var textStarts: [Int] = [0]
        textStarts.reserveCapacity(texts.count + 1)
        var words: [Int32] = []
        var counts: [Int32] = []
        words.reserveCapacity(texts.count * 12)
        counts.reserveCapacity(texts.count * 12)
        let splitter = WordSplitter()
        var text = TextWords()
        for each in texts {
            text.start(byteCount: each.utf8.count)
            splitter.split(each, into: &text)
            words.append(contentsOf: text.words)
            counts.append(contentsOf: text.counts)
            textStarts.append(words.count)
        }
        self.table = text.vocabulary.table()
        self.textStarts = textStarts
        self.words = words
        self.counts = counts
        text.deallocate()
    }
}

/// One text's distinct words, numbered in a part's vocabulary, and how often each comes: what
/// the splitter hands words to while a part is scanned.
private struct TextWords: WordSink {
    var vocabulary = PartVocabulary(capacity: 4_096)
    /// The text's distinct words and their counts, in the order of first use; a text of n bytes
    /// has at most n words.
    private var ids: UnsafeMutablePointer<Int32>
    private var tallies: UnsafeMutablePointer<Int32>
    private var capacity = 256
    private var distinct = 0
    /// Where each word is in `ids`, once a text has more than `scannedDistinctWords`.
    private var positions: [Int32: Int] = [:]

    /// A text's distinct words are found by a scan of those it has so far, up to this many; a
    /// longer text's by a dictionary, so that a huge text is not quadratic.
    static let scannedDistinctWords = 64

    init() {
        ids = .allocate(capacity: capacity)
        tallies = .allocate(capacity: capacity)
    }

    var words: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: ids, count: distinct) }
    var counts: UnsafeBufferPointer<Int32> { UnsafeBufferPointer(start: tallies, count: distinct) }

    /// Starts the next text, of `byteCount` UTF-8 bytes.
    mutating func start(byteCount: Int) {
        distinct = 0
        guard byteCount >= capacity else { return }
        deallocate()
        capacity = byteCount * 2
        ids = .allocate(capacity: capacity)
        tallies = .allocate(capacity: capacity)
    }

    mutating func take(_ word: UnsafeBufferPointer<UInt8>) {
        let id = vocabulary.insert(word)
        if distinct < Self.scannedDistinctWords {
            var entry = 0
            while entry < distinct && ids[entry] != id { entry += 1 }
            if entry < distinct {
                tallies[entry] += 1
                return
            }
            if distinct + 1 == Self.scannedDistinctWords {
                positions.removeAll(keepingCapacity: true)
                for entry in 0..<distinct { positions[ids[entry]] = entry }
                positions[id] = distinct
            }
        } else if let entry = positions[id] {
            tallies[entry] += 1
            return
        } else {
            positions[id] = distinct
        }
        ids[distinct] = id
        tallies[distinct] = 1
        distinct += 1
    }

    /// Frees the buffers; the last call.
    func deallocate() {
        ids.deallocate()
        tallies.deallocate()
    }
}
