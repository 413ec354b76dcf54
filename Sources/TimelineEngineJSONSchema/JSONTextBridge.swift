import TimelineEngineJSONText
import TimelineEngineValueTree

/// Compact JSON text of small schema values, for messages.
enum JSONTextBridge {
    static func compact(_ value: Value) throws -> String {
        try JSONWriter(style: .compact).write(value)
    }
}
