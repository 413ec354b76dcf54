import ArgumentParser

/// `engine timeline fetch|show`: cache-first loading into a store, and what a store holds.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Load a timeline cache-first into a store, or show a cached timeline.",
        subcommands: [TimelineFetchCommand.self, TimelineShowCommand.self]
    )
}

/// Ages for people: "42 s", "3 min", "5 h", "2 d".
enum Age {
    static func describe(_ seconds: Double) -> String {
        // Up to ten thousand years: an age beyond is no age a clock or a store can give.
        let value = seconds.isNaN ? 0 : min(max(0, seconds), 3.2e11)
        if value < 90 { return "\(Int(value.rounded())) s" }
        if value < 90 * 60 { return "\(Int((value / 60).rounded())) min" }
        if value < 36 * 3600 { return "\(Int((value / 3600).rounded())) h" }
        return "\(Int((value / 86_400).rounded())) d"
    }
}
