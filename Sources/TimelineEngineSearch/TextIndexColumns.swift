import TimelineEngineCore

/// The flat arrays of a `TextIndex`, as buffers: allocated when the index is built, or views
/// into a file mapped into memory (`TextIndexFile`), so that a query runs the same code on
/// either and a mapped index is ready without reading its file.
// @unchecked: the buffers are written before `init` returns, only read after, and released in `deinit`.
final class TextIndexColumns: @unchecked Sendable {
    /// Word `w`'s postings are `postings[postingStarts[w]..<postingStarts[w + 1]]`, in text order.
    let postingStarts: UnsafeBufferPointer<Int>
    let postings: UnsafeBufferPointer<TextIndex.Posting>
    /// Text `t`'s words are `textWords[textStarts[t]..<textStarts[t + 1]]`.
    let textStarts: UnsafeBufferPointer<Int>
    let textWords: UnsafeBufferPointer<TextIndex.TextWord>
    let documentFrequency: UnsafeBufferPointer<Int32>
    let vocabulary: WordLookup
    /// Releases the memory the buffers view: frees what was allocated, or unmaps the file.
    private let release: () -> Void

    init(
        postingStarts: UnsafeBufferPointer<Int>, postings: UnsafeBufferPointer<TextIndex.Posting>, textStarts: UnsafeBufferPointer<Int>,
        textWords: UnsafeBufferPointer<TextIndex.TextWord>, documentFrequency: UnsafeBufferPointer<Int32>, vocabulary: WordLookup,
        release: @escaping () -> Void
    ) {
        self.postingStarts = postingStarts
        self.postings = postings
        self.textStarts = textStarts
        self.textWords = textWords
        self.documentFrequency = documentFrequency
        self.vocabulary = vocabulary
        self.release = release
    }

    /// Columns that own their memory: the large ones taken over from the build's shared
    /// buffers, the small ones copied from arrays.
    convenience init(
        postingStarts: [Int], postings: SharedBuffer<TextIndex.Posting>, textStarts: SharedBuffer<Int>,
        textWords: SharedBuffer<TextIndex.TextWord>, documentFrequency: [Int32], vocabulary: WordTable
    ) {
        let words = vocabulary.columns
        let owned = OwnedBuffers()
        let postingsBuffer = owned.take(postings)
        let textStartsBuffer = owned.take(textStarts)
        let textWordsBuffer = owned.take(textWords)
        let lookup = WordLookup(
            bytes: owned.copy(words.bytes), starts: owned.copy(words.starts), hashes: owned.copy(words.hashes),
            slots: owned.copy(words.slots))
        self.init(
            postingStarts: owned.copy(postingStarts), postings: postingsBuffer, textStarts: textStartsBuffer,
            textWords: textWordsBuffer, documentFrequency: owned.copy(documentFrequency), vocabulary: lookup,
            release: { owned.free() })
    }

    deinit { release() }

    /// The bytes the columns hold.
    var byteCount: Int {
        postingStarts.count * MemoryLayout<Int>.stride + postings.count * MemoryLayout<TextIndex.Posting>.stride
            + textStarts.count * MemoryLayout<Int>.stride + textWords.count * MemoryLayout<TextIndex.TextWord>.stride
            + documentFrequency.count * MemoryLayout<Int32>.stride + vocabulary.bytes.count + vocabulary.starts.count * MemoryLayout<Int>.stride
            + vocabulary.hashes.count * MemoryLayout<UInt64>.stride + vocabulary.slots.count * MemoryLayout<Int32>.stride
    }
}

extension OwnedBuffers {
    /// The memory of `shared`, which from now on these buffers free.
    func take<Element>(_ shared: SharedBuffer<Element>) -> UnsafeBufferPointer<Element> {
        let buffer = shared.detach()
        adopt(buffer)
        return UnsafeBufferPointer(buffer)
    }
}
