import Foundation
import ValueTree

/// Standard output and standard error for the commands. Every line goes through
/// `TerminalText.lineSafe`: whatever foreign text a command prints (a post, an author, a server's
/// message), no escape sequence reaches the terminal. JSON output (`outRaw`) is escaped by its
/// writer.
enum Console {
    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data((TerminalText.lineSafe(text) + "\n").utf8))
    }

    static func outRaw(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.lineSafe(text) + "\n").utf8))
    }
}
