import ArgumentParser
import TimelineEngineKit

/// `engine schema print`: the configuration schema the tool validates with.
struct SchemaPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print the SocialFusionTimelineConfiguration JSON Schema.",
        discussion: """
            The output is byte for byte schemas/SocialFusionTimelineConfiguration.schema.json. \
            With --compose, the schema is composed afresh from the configuration keys' \
            declarations and the registered strategies' parameter schemas; after adding a \
            strategy or a key, Strategies/generate.sh writes it to the schema file and into the \
            library. With --file, the schema of a JSON configuration file \
            as users write it, with the configuration under SocialFusionTimelineConfiguration \
            and "$schema" beside it: schemas/SocialFusionTimelineConfiguration.file.schema.json.
            """
    )

    @Flag(name: .long, help: "Compose the schema afresh from the keys' declarations and the registry.")
    var compose = false

    @Flag(
        name: .long,
        help: "Print the schema of a JSON configuration file as users write it (schemas/SocialFusionTimelineConfiguration.file.schema.json).")
    var file = false

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        do {
            if file {
                Console.outRaw(try ConfigurationSchemaComposer.fileSchemaText())
            } else {
                Console.outRaw(compose ? try ConfigurationSchemaComposer.composedText() : ConfigurationSchema.text)
            }
        } catch {
            throw CommandFailure(.failed, "error: the schema has no JSON form: \(error)")
        }
    }
}
