/// Text that a peer, a server or a file controls, made safe to print: control characters
/// (C0, DEL, C1) and the bidirectional overrides are written as `\u{…}`, so that no escape
/// sequence reaches a terminal and no newline forges a line of output or of a log; long text is
/// cut.
public enum TerminalText {
    /// The most characters kept of one piece of foreign text.
    public static let maximumCharacters = 300

    /// `text` with every unprintable scalar escaped, cut to `maximumCharacters` with `…`.
    public static func escaped(_ text: String) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= maximumCharacters {
                result += "…"
                break
            }
            if isUnsafe(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return result
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true // bidirectional embeddings, overrides and isolates
        default: return false
        }
    }
}
