import Foundation
import TimelineEngineKit

/// Standard output and standard error for the commands. Every line goes through
/// `TerminalText.lineSafe`: whatever foreign text a command prints (a post, an author, a server's
/// message), no escape sequence reaches the terminal. JSON output (`outRaw`) is escaped by its
/// writer.
enum Console {
    static func out(_ text: String) {
        write(TerminalText.lineSafe(text) + "\n", to: .standardOutput)
    }

    static func outRaw(_ text: String) {
        write(text, to: .standardOutput)
    }

    static func error(_ text: String) {
        write(TerminalText.lineSafe(text) + "\n", to: .standardError)
    }

    /// Writes the string's UTF-8 from where it is stored. (`Data(text.utf8)` asks at run time
    /// whether the view is contiguous bytes, a lookup through every conformance of the binary
    /// that each command paid at its first line.)
    private static func write(_ text: String, to handle: FileHandle) {
        var text = text
        text.withUTF8 { handle.write(Data(buffer: $0)) }
    }
}

extension Console {
    /// Prints `value` as JSON: pretty, ending with a line break, or compact on one line. A value
    /// with no JSON form (a non-finite number, a date) fails the command with its key path.
    static func json(_ value: Value, pretty: Bool = true) throws(CommandFailure) {
        let text = try jsonText(value, pretty: pretty)
        if pretty { outRaw(text) } else { out(text) }
    }

    /// `value` as JSON text, for a command that writes it elsewhere; the same failure as `json`.
    static func jsonText(_ value: Value, pretty: Bool = true) throws(CommandFailure) -> String {
        do {
            return try JSONWriter(style: pretty ? .pretty : .compact).write(value)
        } catch {
            throw CommandFailure(.failed, "error: the output has no JSON form: \(error)")
        }
    }
}
