import ArgumentParser
import Testing

@testable import TimelineEngineCommands

/// Every subcommand's help, as a new user reads it.
@Suite("engine --help for every subcommand", .timeLimit(.minutes(10)))
struct HelpTests {
    /// Every command below `engine` that runs something (no subcommands of its own).
    static let leaves: [ParsableCommand.Type] = {
        func walk(_ command: ParsableCommand.Type) -> [ParsableCommand.Type] {
            let children = command.configuration.subcommands
            return children.isEmpty ? [command] : children.flatMap(walk)
        }
        return walk(Engine.self)
    }()

    @Test("the README's shared options are accepted by every command: --verbose, --quiet, and --lenient with a configuration to run")
    func sharedOptions() async throws {
        #expect(Self.leaves.count >= 16)
        for command in Self.leaves {
            let help = Engine.helpMessage(for: command, columns: 200)
            let name = command.configuration.commandName ?? "\(command)"
            #expect(help.contains("--verbose") && help.contains("--quiet"), "\(name) does not take --verbose and --quiet")
            if help.contains("--config"), !["validate", "print"].contains(name) {
                #expect(help.contains("--lenient"), "\(name) runs with a configuration but has no --lenient")
            }
            #expect(!help.contains("--format table"), "\(name)")
        }
    }

    @Test("example command lines stay whole in an 80-column terminal, so they can be copied")
    func examplesAreNotWrapped() {
        for command in Self.leaves {
            let help = Set(Engine.helpMessage(for: command, columns: 80).split(separator: "\n").map(String.init))
            let examples = command.configuration.discussion.split(separator: "\n").map(String.init).filter { $0.hasPrefix("  ") }
            for example in examples {
                #expect(help.contains(example), "\(command.configuration.commandName ?? "?"): \(example)")
            }
        }
    }
}
