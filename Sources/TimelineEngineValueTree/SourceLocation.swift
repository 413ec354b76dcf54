/// A position in a source document: a 1-based line and, where the reader knows it, a 1-based
/// column.
///
/// Stored in eight bytes so that every value of a large document can carry one.
public struct SourceLocation: Hashable, Sendable, Comparable, CustomStringConvertible {
    private let storedLine: UInt32
    private let storedColumn: UInt32

    /// Creates a location. Lines and columns count from 1; a column of `nil` means unknown.
    public init(line: Int, column: Int? = nil) {
        storedLine = UInt32(clamping: max(0, line))
        storedColumn = UInt32(clamping: max(0, column ?? 0))
    }

    /// The 1-based line.
    public var line: Int { Int(storedLine) }

    /// The 1-based column, when known.
    public var column: Int? { storedColumn == 0 ? nil : Int(storedColumn) }

    /// `LINE` or `LINE:COLUMN`.
    public var description: String {
        if let column { return "\(line):\(column)" }
        return "\(line)"
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.storedLine, lhs.storedColumn) < (rhs.storedLine, rhs.storedColumn)
    }
}
