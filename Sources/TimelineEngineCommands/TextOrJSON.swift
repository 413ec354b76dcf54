import ArgumentParser

/// `--format text|json`, for the commands that print either a text for people or JSON for
/// tools.
enum TextOrJSON: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
