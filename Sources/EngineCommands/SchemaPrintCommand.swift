import ArgumentParser
import Configuration

/// `engine schema print`: the configuration schema the tool validates with.
struct SchemaPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print the SocialFusionTimelineConfiguration JSON Schema.",
        discussion: "The output is byte for byte schemas/SocialFusionTimelineConfiguration.schema.json."
    )

    func run() throws {
        Console.outRaw(ConfigurationSchema.text)
    }
}
