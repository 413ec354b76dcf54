/// Text that a peer, a server or a file controls, made safe to print: control characters
/// (C0, DEL, C1) and the bidirectional overrides are written as `\u{…}`, so that no escape
/// sequence reaches a terminal and no newline forges a line of output or of a log; long text is
/// cut.
public enum TerminalText {
    /// The most characters kept of one piece of foreign text.
    public static let maximumCharacters = 300

    /// `text` with every unprintable scalar escaped, cut to `limit` characters with `…`.
    public static func escaped(_ text: String, limit: Int = maximumCharacters) -> String {
        escaping(text, limit: limit, where: isUnsafe)
    }

    /// `text` escaped as `escaped` does, and every scalar that shows as nothing or as a part of
    /// its neighbour escaped too: a format character (a zero-width space), a combining mark (the
    /// accent of a decomposed `é`), a space other than U+0020. Two names that print alike then
    /// print differently, for an operator choosing between them (`engine serve token list`).
    public static func distinct(_ text: String, limit: Int = maximumCharacters) -> String {
        escaping(text, limit: limit) { isUnsafe($0) || looksLikeNothing($0) }
    }

    /// `text` with each scalar `escape` picks written as `\u{…}`, cut to `limit` characters.
    private static func escaping(_ text: String, limit: Int, where escape: (Unicode.Scalar) -> Bool) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                result += "…"
                break
            }
            if escape(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
            count += 1
        }
        return result
    }

    private static func looksLikeNothing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .format, .nonspacingMark, .enclosingMark, .spacingMark, .lineSeparator, .paragraphSeparator: true
        case .spaceSeparator: scalar != " "
        default: false
        }
    }

    /// `text` with every unprintable scalar escaped but the line breaks and tabs of the engine's
    /// own output: what `Console` and the log's lines pass through, so that no escape sequence
    /// from foreign text reaches a terminal whatever printed it. Foreign text in a line of its own
    /// making goes through `escaped`, which escapes line breaks too.
    public static func lineSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && $0 != "\n" && $0 != "\t" }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar), scalar != "\n", scalar != "\t" {
                result += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether `text` prints as itself: no control character and no bidirectional control.
    public static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isUnsafe)
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional embeddings, overrides and isolates
        default: return false
        }
    }
}
