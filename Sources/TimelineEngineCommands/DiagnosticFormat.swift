import ArgumentParser
import Foundation
import TimelineEngineKit

/// How diagnostics are printed.
enum DiagnosticFormat: String, ExpressibleByArgument, CaseIterable {
    /// `FILE:LINE:COL: error: PATH: message`, as compilers print.
    case text
    /// One JSON document with every file's diagnostics.
    case json
    /// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=…::message`.
    case github

    /// The JSON object of one diagnostic.
    static func json(_ diagnostic: ConfigurationDiagnostic) -> Value {
        var pairs: [(String, Value)] = [
            ("file", diagnostic.file.map(Value.string) ?? .null),
            ("line", diagnostic.location.map { .integer($0.line) } ?? .null),
            ("column", diagnostic.location?.column.map { .integer($0) } ?? .null),
            ("severity", .string(diagnostic.severity.rawValue)),
            ("kind", .string(diagnostic.kind.rawValue)),
        ]
        pairs.append(("path", diagnostic.path.map { .string($0.isRoot ? "" : $0.description) } ?? .null))
        pairs.append(("pointer", diagnostic.path.map { .string($0.jsonPointer) } ?? .null))
        pairs.append(("keyword", diagnostic.keyword.map(Value.string) ?? .null))
        pairs.append(("message", .string(diagnostic.message)))
        return .dictionary(pairs)
    }

    /// A GitHub Actions annotation line.
    static func github(_ diagnostic: ConfigurationDiagnostic) -> String {
        var properties: [String] = []
        if let file = diagnostic.file { properties.append("file=\(escapeProperty(file))") }
        if let location = diagnostic.location {
            properties.append("line=\(location.line)")
            if let column = location.column { properties.append("col=\(column)") }
        }
        if let path = diagnostic.path, !path.isRoot { properties.append("title=\(escapeProperty(path.description))") }
        let command = diagnostic.severity == .error ? "error" : "warning"
        let head = properties.isEmpty ? "::\(command)" : "::\(command) " + properties.joined(separator: ",")
        return head + "::" + escapeData(diagnostic.message)
    }

    private static func escapeData(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    private static func escapeProperty(_ text: String) -> String {
        escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
