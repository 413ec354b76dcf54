import TimelineEngineValueTree

/// A destination for log records: the tiny protocol that backends implement.
///
/// Sinks are created by name from the configuration's `Logging.Sinks` through a
/// `LogSinkFactory`, so that new ones can be registered beside the built-in `Stderr` and
/// `JSONLines`.
public protocol LogSink: Sendable {
    /// Writes one record. Called from any thread; implementations synchronise themselves.
    func write(_ record: LogRecord)
}

/// Creates a sink from its configuration options.
///
/// Sinks are a small list of their own, not strategies in the registry: they decide nothing
/// that sessions could compare, and logging starts before any registry is built.
public struct LogSinkFactory: Sendable {
    /// The name used in the configuration (`Sink` = `Stderr`).
    public let name: String
    /// One line saying what the sink does.
    public let summary: String
    /// The JSON Schema of its options (an object schema), composed into the configuration
    /// schema.
    public let optionSchema: Value
    /// Builds the sink from the options of its entry in `Logging.Sinks` (everything but `Sink`).
    public let make: @Sendable (_ options: [String: String]) throws -> any LogSink

    public init(
        name: String, summary: String, optionSchema: Value = .dictionary([("type", .string("object")), ("properties", .dictionary([]))]),
        make: @escaping @Sendable (_ options: [String: String]) throws -> any LogSink
    ) {
        self.name = name
        self.summary = summary
        self.optionSchema = optionSchema
        self.make = make
    }

    /// The built-in sinks.
    public static let builtIns: [LogSinkFactory] = [
        LogSinkFactory(name: "Stderr", summary: "Human-readable lines on standard error.") { _ in StderrLogSink() },
        LogSinkFactory(
            name: "JSONLines", summary: "One JSON object per line, appended to the file at Path.",
            optionSchema: .dictionary([
                ("type", .string("object")),
                (
                    "properties",
                    .dictionary([
                        (
                            "Path",
                            .dictionary([
                                ("description", .string("The file the records are appended to.")), ("type", .string("string")),
                                ("minLength", .integer(1)),
                            ])
                        )
                    ])
                ),
                ("required", .array([.string("Path")])),
            ])
        ) { options in
            guard let path = options["Path"], !path.isEmpty else {
                throw LogSinkError("the JSONLines sink needs a Path")
            }
            return try JSONLinesLogSink(path: path)
        },
    ]
}

/// A sink that cannot be created.
public struct LogSinkError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
