import ArgumentParser
import TimelineEngineKit

/// `engine strategies [list] [--format text|json|markdown] [--plugin PATH…]`: every registered
/// strategy type.
struct StrategiesListCommand: ParsableCommand {
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
        /// The table of `Strategies/README.md`.
        case markdown
    }

    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every registered strategy type with its kind, parameters, defaults and summary."
    )

    @Option(name: .long, help: "Output format: text, json or markdown (the table of Strategies/README.md).")
    var format: OutputFormat = .text

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let registry = try plugins.registry()
        let types = registry.typesByKind
        switch format {
        case .json:
            let value = Value.array(
                types.map { type in
                    .dictionary([
                        ("name", .string(type.name)), ("kind", .string(type.kind.rawValue)), ("summary", .string(type.summary)),
                        ("composition", .bool(type.isComposition)), ("parameters", type.parameterSchema),
                    ])
                })
            Console.outRaw(try JSONWriter(style: .pretty).write(value))
        case .markdown:
            Console.out("| strategy | kind | parameters | what it does |")
            Console.out("|---|---|---|---|")
            for type in types {
                let kind = type.kind.rawValue + (type.isComposition ? " (composition)" : "")
                let parameters = type.parameterNames.map { "`\($0)`" }.joined(separator: ", ")
                Console.out("| `\(type.name)` | \(kind) | \(parameters) | \(type.summary) |")
            }
        case .text:
            for kind in registry.kinds {
                let ofKind = registry.types(of: kind)
                Console.out("\(kind.rawValue):")
                for type in ofKind {
                    Console.out("  \(type.name)\(type.isComposition ? " (composition)" : "") — \(type.summary)")
                    for (name, member) in type.parameterSchema["properties"]?.dictionaryValue ?? [:] {
                        Console.out("      \(name): " + Self.describe(member.value))
                    }
                }
            }
        }
    }

    /// A parameter's schema on one line: type, allowed values, range, default, description.
    static func describe(_ schema: Value) -> String {
        var line = schema["type"]?.stringValue ?? "any"
        if let choices = schema["enum"]?.arrayValue { line += " (\(choices.compactMap(\.stringValue).joined(separator: ", ")))" }
        var range: [String] = []
        if let minimum = schema["minimum"] { range.append("≥ \(minimum)") }
        if let minimum = schema["exclusiveMinimum"] { range.append("> \(minimum)") }
        if let maximum = schema["maximum"] { range.append("≤ \(maximum)") }
        if !range.isEmpty { line += " \(range.joined(separator: ", "))" }
        if let value = schema["default"] { line += ", default \(value.stringValue ?? value.description)" }
        if let description = schema["description"]?.stringValue { line += " — \(description)" }
        return line
    }
}
