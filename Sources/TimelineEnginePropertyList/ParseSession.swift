import Foundation
import TimelineEngineCLibXML2
import TimelineEngineValueTree

/// One run of libxml2's push parser with our SAX2 callbacks, building the value tree as
/// elements close. Used by `PropertyListReader`; not shared between threads.
final class ParseSession {
    let builder: TreeBuilder
    private var context: xmlParserCtxtPtr?
    private var handler = xmlSAXHandler()
    private(set) var stopped = false
    private var started = false
    private let fileName: String?

    private static let initialized: Bool = {
        xmlInitParser()
        // Our own cap (ParseSession.maximumDepth) must be the one that applies, so libxml2's
        // default of 256 elements is raised above the largest depth we accept.
        timeline_xml_set_max_depth(4096)
        return true
    }()

    init(maximumDepth: Int, fileName: String?, retainsValues: Bool = true) {
        _ = ParseSession.initialized
        builder = TreeBuilder(maximumDepth: min(maximumDepth, 4000), retainsValues: retainsValues)
        self.fileName = fileName
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { user, name, _, _, namespaceCount, _, attributeCount, _, _ in
            guard let user, let name else { return }
            ParseSession.from(user).builder.startElement(name, hasAttributes: namespaceCount + attributeCount > 0)
        }
        handler.endElementNs = { user, name, _, _ in
            guard let user, let name else { return }
            ParseSession.from(user).builder.endElement(name)
        }
        handler.characters = { user, bytes, length in
            guard let user, let bytes else { return }
            ParseSession.from(user).builder.characters(UnsafeBufferPointer(start: bytes, count: Int(length)))
        }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = handler.characters
        handler.internalSubset = { user, _, _, _ in
            guard let user else { return }
            ParseSession.from(user).builder.doctype()
        }
        handler.entityDecl = { user, name, _, _, _, _ in
            guard let user else { return }
            let entity = name.map { String(cString: $0) } ?? ""
            ParseSession.from(user).builder.fail("entity declarations are not allowed in property lists (<!ENTITY \(entity)>)")
        }
        handler.reference = { user, name in
            guard let user else { return }
            let entity = name.map { String(cString: $0) } ?? ""
            ParseSession.from(user).builder.fail("entity reference &\(entity); is not allowed in property lists")
        }
        handler.serror = { user, error in
            guard let user, let error else { return }
            ParseSession.from(user).builder.libxmlError(error.pointee)
        }
    }

    deinit {
        if let context {
            xmlFreeParserCtxt(context)
        }
    }

    private static func from(_ pointer: UnsafeMutableRawPointer) -> ParseSession {
        Unmanaged<ParseSession>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Feeds the next chunk of bytes; `isLast` ends the document.
    func feed(_ bytes: UnsafeRawBufferPointer, isLast: Bool) throws(PropertyListError) {
        if stopped { return }
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        if !started {
            started = true
            let user = Unmanaged.passUnretained(self).toOpaque()
            // The first bytes let libxml2 detect the encoding (BOM, UTF-16, declaration).
            let head = min(bytes.count, 4)
            context = xmlCreatePushParserCtxt(&handler, user, base, Int32(head), fileName)
            guard let context else {
                throw PropertyListError("cannot create the XML parser", at: nil)
            }
            builder.context = context
            xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_BIG_LINES.rawValue))
            let rest = bytes.count - head
            xmlParseChunk(context, rest > 0 ? base! + head : nil, Int32(rest), isLast ? 1 : 0)
        } else if let context {
            xmlParseChunk(context, base, Int32(bytes.count), isLast ? 1 : 0)
        }
        if builder.error != nil {
            stopped = true
        }
    }

    /// Ends the document and returns its root value, or the first error found.
    func finish() throws(PropertyListError) -> Value {
        if let error = builder.error { throw error }
        if let context, context.pointee.wellFormed == 0 {
            throw PropertyListError("the document is not well-formed XML", at: SourceLocation(line: Int(timeline_xml_line(context))))
        }
        guard let root = builder.root else {
            throw PropertyListError("the document holds no property-list value", at: SourceLocation(line: 1))
        }
        return root
    }
}
