import ArgumentParser
import Foundation
import Logging
import TimelineEngineKit

/// `engine validate FILE...`: checks configuration files against the configuration schema.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate SocialFusionTimelineConfiguration files (plist, Info.plist or JSON).",
        discussion: """
            Every problem in every file is reported, in compiler style:
              FILE:LINE:COL: error: KEY.PATH: message

            Strategy names and parameters are checked against the built-ins and the --plugin \
            libraries. The plugins a file lists under Plugins are loaded (their code runs) only \
            with --load-plugins: validate is a gate for files it has not seen before.

            Exit codes: 0 valid (warnings allowed unless --strict), 1 invalid, 2 unreadable file, \
            a plugin that cannot be loaded, or bad usage.

            Examples:
              engine validate config/SocialFusionTimelineConfiguration.plist
              engine validate --strict MyApp/Info.plist
              engine validate --format github config/*.plist config/*.json
              engine validate --format json settings.json > report.json
            """
    )

    @Option(name: .long, help: "Output format: text, json or github.")
    var format: DiagnosticFormat = .text

    @Flag(name: .long, help: "Treat warnings (deprecated keys) as errors.")
    var strict = false

    @OptionGroup var plugins: PluginOptions

    @Flag(
        name: .customLong("load-plugins"),
        help: "Also load the plugins each file lists under Plugins, running their code, so that their strategies are known.")
    var loadPlugins = false

    @OptionGroup var logging: LoggingOptions

    @Argument(help: "Configuration files: standalone plists, Info.plists or JSON.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file to validate") }
    }

    func run() throws {
        let logger = logging.logger(.timeline)
        let registry = try plugins.registry()
        var unreadable = false
        var failed = false
        var reports: [Value] = []
        for file in files {
            let started = ContinuousClock.now
            var (loaded, extended, notLoaded) = try ConfigurationInput.readListing(file, registry: registry, loadListed: loadPlugins)
            // What the schema cannot say: a phrase to seal with and a transport that cannot seal.
            if loaded.errors.isEmpty, let problem = SyncComponents.sealingProblem(loaded.configuration, registry: extended) {
                let value = loaded.document?["Sync"]?["EncryptionPhraseVariable"]
                loaded.diagnostics.append(
                    ConfigurationDiagnostic(
                        severity: .error, kind: .schema, file: file, location: value?.location,
                        path: ValuePath.root.appending(key: "Sync").appending(key: "EncryptionPhraseVariable"), message: problem))
            }
            if !notLoaded.isEmpty {
                Console.error(
                    "\(file): note: Plugins lists \(count(notLoaded.count, "library", plural: "libraries")), not loaded; their strategies are unknown here (--load-plugins loads them, running their code)"
                )
            }
            logger.debug(
                "validated",
                metadata: [
                    "file": "\(file)", "milliseconds": "\(Int((ContinuousClock.now - started) / .milliseconds(1)))",
                    "errors": "\(loaded.errors.count)", "warnings": "\(loaded.warnings.count)",
                ])
            if loaded.diagnostics.contains(where: { $0.kind == .unreadable }) { unreadable = true }
            let fileFailed = !loaded.errors.isEmpty || (strict && !loaded.warnings.isEmpty)
            failed = failed || fileFailed
            switch format {
            case .text:
                for diagnostic in loaded.diagnostics { Console.error(diagnostic.description) }
                if loaded.diagnostics.isEmpty {
                    Console.out("\(file): OK")
                } else if !fileFailed {
                    Console.out("\(file): OK with \(count(loaded.warnings.count, "warning"))")
                }
            case .github:
                for diagnostic in loaded.diagnostics { Console.out(DiagnosticFormat.github(diagnostic)) }
            case .json:
                reports.append(
                    .dictionary([
                        ("file", .string(file)),
                        ("valid", .bool(!fileFailed)),
                        ("errors", .integer(loaded.errors.count)),
                        ("warnings", .integer(loaded.warnings.count)),
                        ("diagnostics", .array(loaded.diagnostics.map(DiagnosticFormat.json))),
                    ]))
            }
        }
        if format == .json {
            let document = Value.dictionary([("valid", .bool(!failed)), ("files", .array(reports))])
            Console.outRaw(try JSONWriter(style: .pretty).write(document))
        }
        if unreadable { throw EngineExit.usage }
        if failed { throw EngineExit.invalid }
    }

    private func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }
}
