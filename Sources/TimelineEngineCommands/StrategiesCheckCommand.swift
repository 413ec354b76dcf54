import ArgumentParser
import TimelineEngineKit

/// `engine strategies check [NAME…] [--plugin PATH…]`: runs the conformance checks of
/// restoration and fallback strategies: their own scenarios and the common ones.
struct StrategiesCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the conformance checks of strategies: their own scenarios and the common ones.",
        discussion: """
            Without names, every strategy the --plugin libraries provide is checked, or every \
            built-in when there is no --plugin. Each check prints PASS or FAIL with the reason; \
            a warning says when a strategy cannot win inside FirstMatch.

            Exit codes: 0 every check passed, 1 a check failed, 2 a plugin that cannot be \
            loaded, an unknown name or bad usage.

            Example:
              engine strategies check --plugin ./libSameAuthorPlugin.so
            """
    )

    @Argument(help: "The strategies to check (default: the plugins', or every built-in).")
    var names: [String] = []

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let registry = try plugins.registry()
        let fromPlugins = registry.types.dropFirst(BuiltInStrategies.registry.types.count)
        var chosen: [StrategyType] = []
        for name in names {
            do {
                chosen.append(try registry.lookup(name, kind: .restoration))
            } catch {
                throw CommandFailure(.usage, "error: \(error.description)")
            }
        }
        if names.isEmpty { chosen = Array(plugins.paths.isEmpty ? registry.types[...] : fromPlugins) }
        let checked = chosen.filter { $0.kind == .restoration || $0.kind == .fallback }
        let check = StrategyCheck(registry: registry)
        var failures = 0
        var total = 0
        for type in checked {
            for result in check.run(type) {
                total += 1
                if let failure = result.failure {
                    failures += 1
                    Console.out("FAIL \(type.name): \(result.check): \(failure)")
                } else if !logging.quiet {
                    Console.out("PASS \(type.name): \(result.check)")
                }
            }
            for warning in check.warnings(type) { Console.error("warning: \(warning)") }
        }
        Console.out("\(total - failures) of \(total) checks passed for \(checked.count) \(checked.count == 1 ? "strategy" : "strategies").")
        if failures > 0 { throw EngineExit.invalid }
    }
}
