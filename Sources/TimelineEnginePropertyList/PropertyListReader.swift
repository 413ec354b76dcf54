import Foundation
import TimelineEngineCLibXML2
import TimelineEngineValueTree

/// Reads XML property lists (Apple's plist 1.0 format) into a `Value` tree, through libxml2's
/// streaming SAX2 parser.
///
/// Every value keeps its source line, and its column where libxml2 gives one. The reader is as
/// strict as CoreFoundation and CPython's `plistlib` together: a key without a value, a non-key
/// inside `<dict>`, a key inside `<array>`, duplicate keys, two roots, an empty `<plist>`, unknown
/// tags, `<true>` with content, integers out of range or with spaces, non-finite reals, impossible
/// dates and bad base64 are all errors with a line.
///
/// Security: documents are parsed with `XML_PARSE_NONET` only (never entity substitution, DTD
/// loading or `XML_PARSE_HUGE`); an internal DTD subset or an entity reference rejects the
/// document, so no external entity is ever loaded and no entity is ever expanded. Nesting is
/// capped at `maximumDepth` containers and input at `maximumInputSize` bytes.
public struct PropertyListReader: Sendable {
    /// The default cap on input size: 64 MiB.
    public static let defaultMaximumInputSize = 64 * 1024 * 1024
    /// The default cap on nested dictionaries and arrays: 512, as CoreFoundation.
    public static let defaultMaximumDepth = 512

    /// The largest input accepted, in bytes.
    public var maximumInputSize: Int
    /// The deepest nesting of dictionaries and arrays accepted.
    public var maximumDepth: Int

    public init(maximumInputSize: Int = defaultMaximumInputSize, maximumDepth: Int = defaultMaximumDepth) {
        self.maximumInputSize = maximumInputSize
        self.maximumDepth = maximumDepth
    }

    /// Reads a property list from bytes in any encoding libxml2 detects or is told in the XML
    /// declaration (UTF-8 with or without BOM, UTF-16 with BOM, ISO-8859-1, …).
    public func read(_ data: Data) throws(PropertyListError) -> Value {
        try parse(data, retainingValues: true)
    }

    /// Checks bytes as `read(_:)` does, with every rule applied, without building the value
    /// tree: memory stays flat however large the document (what `engine plist lint` uses).
    public func check(_ data: Data) throws(PropertyListError) {
        do {
            _ = try parse(data, retainingValues: false)
        } catch  where error.isDuplicateFoundWhileChecking {
            _ = try parse(data, retainingValues: true)  // reports the first occurrence's line too
            throw error
        }
    }

    /// Reads a property list file, streaming it through the parser in chunks.
    public func read(contentsOf url: URL) throws(PropertyListError) -> Value {
        try parse(contentsOf: url, retainingValues: true)
    }

    /// Checks a property list file as `read(contentsOf:)` does, without building the value tree.
    public func check(contentsOf url: URL) throws(PropertyListError) {
        do {
            _ = try parse(contentsOf: url, retainingValues: false)
        } catch  where error.isDuplicateFoundWhileChecking {
            _ = try parse(contentsOf: url, retainingValues: true)  // reports the first occurrence's line too
            throw error
        }
    }

    private func parse(_ data: Data, retainingValues: Bool) throws(PropertyListError) -> Value {
        if data.count > maximumInputSize {
            throw sizeError(data.count)
        }
        let session = ParseSession(maximumDepth: maximumDepth, fileName: nil, retainsValues: retainingValues)
        let fed = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, PropertyListError> in
            let chunkSize = 1 << 16
            var offset = 0
            repeat {
                let end = min(raw.count, offset + chunkSize)
                let result = Result { () throws(PropertyListError) in
                    try session.feed(UnsafeRawBufferPointer(rebasing: raw[offset..<end]), isLast: end == raw.count)
                }
                if case .failure = result { return result }
                offset = end
            } while offset < raw.count && !session.stopped
            return .success(())
        }
        try fed.get()
        return try session.finish()
    }

    private func parse(contentsOf url: URL, retainingValues: Bool) throws(PropertyListError) -> Value {
        let handle: FileHandle
        if let problem = FileData.problem(atPath: url.path) { throw PropertyListError(unreadable: FileData.ReadError(reason: problem)) }
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw PropertyListError(unreadable: FileData.ReadError(reason: FileErrorReason.describe(error)))
        }
        defer { try? handle.close() }
        if let size = try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber,
            size.intValue > maximumInputSize
        {
            throw sizeError(size.intValue)
        }
        let session = ParseSession(maximumDepth: maximumDepth, fileName: url.path, retainsValues: retainingValues)
        var total = 0
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 16) ?? Data()
            } catch {
                throw PropertyListError(unreadable: FileData.ReadError(reason: FileErrorReason.describe(error)))
            }
            total += chunk.count
            if total > maximumInputSize { throw sizeError(total) }
            let isLast = chunk.isEmpty
            try chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Void, PropertyListError> in
                Result { () throws(PropertyListError) in try session.feed(raw, isLast: isLast) }
            }.get()
            if isLast || session.stopped { break }
        }
        return try session.finish()
    }

    private func sizeError(_ size: Int) -> PropertyListError {
        PropertyListError(
            "input is \(size) bytes, more than the limit of \(maximumInputSize) bytes (maximumInputSize)",
            at: nil)
    }
}
