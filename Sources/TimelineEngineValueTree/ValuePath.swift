import Foundation

/// Where a value sits inside a document: the keys and indexes from the root down.
///
/// Printed as a key path (`PositionPersistence.FallbackStrategy`, `Restoration.Pipeline[2]`) for
/// people, and as a JSON Pointer (`/Restoration/Pipeline/2`) for tools.
public struct ValuePath: Hashable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// One step down: a dictionary's key or an array's index.
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    public init(arrayLiteral elements: Component...) {
        components = elements
    }

    /// The root of a document.
    public static let root = ValuePath()

    public var isRoot: Bool { components.isEmpty }

    public func appending(_ component: Component) -> ValuePath {
        ValuePath(components + [component])
    }

    public func appending(key: String) -> ValuePath { appending(.key(key)) }
    public func appending(key: Value.Key) -> ValuePath { appending(.key(key.string)) }
    public func appending(index: Int) -> ValuePath { appending(.index(index)) }

    /// The path one step up; the root's parent is the root.
    public var parent: ValuePath { ValuePath(Array(components.dropLast())) }

    /// The last key on the path, if the path ends in a key.
    public var lastKey: String? {
        if case .key(let key)? = components.last { return key }
        return nil
    }

    /// Whether `self` is `other` or lies inside it.
    public func hasPrefix(_ other: ValuePath) -> Bool {
        components.starts(with: other.components)
    }

    /// The key path: keys joined by dots, indexes in brackets, `(root)` for the root. Keys that
    /// are not plain words, or too long to show whole, are quoted in brackets: `["a.b"]`.
    public var description: String {
        if components.isEmpty { return "(root)" }
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if ValuePath.isPlain(key), key.utf8.count <= Value.maximumQuotedLength {
                    if !text.isEmpty { text += "." }
                    text += key
                } else {
                    text += "[" + Value.quote(key) + "]"
                }
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// The JSON Pointer (RFC 6901): `""` for the root, `~` and `/` escaped.
    public var jsonPointer: String {
        components.map { component -> String in
            switch component {
            case .key(let key):
                return "/" + key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let index):
                return "/\(index)"
            }
        }.joined()
    }

    private static func isPlain(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return key.unicodeScalars.allSatisfy { $0 == "_" || $0 == "-" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }
}
