/// JSON Schema patterns (ECMA 262) for text a configuration gives, shared by settings and
/// strategy parameters: a configuration is a file that travels, and its text reaches errors and
/// logs.
public enum TextPattern {
    /// An environment variable's name (POSIX portable: letters, digits, `_`, not starting with
    /// a digit), or nothing.
    public static let environmentVariableOrEmpty = "^([A-Za-z_][A-Za-z0-9_]*)?$"
    /// An environment variable's name.
    public static let environmentVariable = "^[A-Za-z_][A-Za-z0-9_]*$"
    /// Sync key ids (8 lowercase hexadecimal digits each, as `engine sync phrase` shows them),
    /// separated by commas, or nothing.
    public static let keyIdsOrEmpty = "^([0-9a-f]{8}(,[0-9a-f]{8})*)?$"
    /// Any text without control characters (an escape sequence, a line break).
    public static let noControlCharacters = "^[^\\u0000-\\u001F\\u007F]*$"
}
