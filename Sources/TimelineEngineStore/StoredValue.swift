import GRDB

/// A column of the store holding a value of another type than the engine writes there (a store
/// edited by hand, or by another program): the read fails naming the column, where GRDB's row
/// subscripts would stop the process.
struct StoredValueError: Error, CustomStringConvertible {
    /// The column's name in the query that read it.
    var column: String
    /// What the column holds: "text", "a number", "NULL"…
    var found: String
    /// What the engine writes there.
    var expected: String

    var description: String { "column \(column) holds \(found) where \(expected) belongs" }
}

extension Row {
    /// The value of column `index`, converted to `Value`; `StoredValueError` when it is of
    /// another type (text where a number belongs, NULL where a value must be).
    func stored<Value: DatabaseValueConvertible>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
        do {
            return try decode(Value.self, atIndex: index)
        } catch {
            let names = Array(columnNames)
            let held: DatabaseValue = self[index]
            throw StoredValueError(
                column: names.indices.contains(index) ? names[index] : "\(index)", found: Self.kind(of: held), expected: Self.kind(of: Value.self))
        }
    }

    /// What a stored value is, in words; never the value itself, which may be anything.
    static func kind(of value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64: "an integer"
        case .double: "a number"
        case .string: "text"
        case .blob: "bytes"
        }
    }

    /// What the engine stores as `type`, in words.
    static func kind(of type: Any.Type) -> String {
        let name = String(describing: type).replacingOccurrences(of: "Optional<", with: "").replacingOccurrences(of: ">", with: "")
        switch name {
        case "Double": return "a number"
        case "Int", "Int64": return "an integer"
        case "String": return "text"
        case "Data": return "bytes"
        case "Bool": return "a boolean"
        default: return name
        }
    }
}
