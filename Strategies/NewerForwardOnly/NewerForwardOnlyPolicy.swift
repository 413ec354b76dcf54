import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// NewerForwardOnly: KOReader's progress sync with its defaults. The newest write by its
/// device's own timestamp (`savedAt`) is the remote progress; a device behind it asks the reader
/// whether to move forward (`Forward`, KOReader's "sync to a newer state", Prompt by default),
/// and a device ahead of it stays where it is (`Backward`, "sync to an older state", Never by
/// default). Which way is forward comes from the reading `Direction`; on a feed without
/// progress every move counts as forward.
///
/// The failures: a move back made on another device never reaches this one, so a re-read is
/// lost (`scroll-back`), and every device switch forward asks, even when one device did all the
/// reading. With `Backward` set to Silent, a newer position that is behind moves the reader
/// back, as koreader#16011 reports of the plugin.
public struct NewerForwardOnlyPolicy: MergePolicy, DeclaredStrategy {
    /// What a device does with a newer position that is further along, or behind.
    public enum Move: String, ParameterChoice {
        /// Ask the reader first.
        case prompt = "Prompt"
        /// Move without asking.
        case silent = "Silent"
        /// Stay where this device is.
        case never = "Never"
    }

    public static let forwardParameter = Parameter<Move>(
        "Forward", help: "What a device behind the newest position does: Prompt (ask first), Silent (move) or Never (stay).",
        default: .prompt)
    public static let backwardParameter = Parameter<Move>(
        "Backward", help: "What a device ahead of the newest position does: Prompt (ask first), Silent (move back) or Never (stay).",
        default: .never)

    public static let type = StrategyType(
        name: "NewerForwardOnly", kind: .merge,
        summary: "The newest write by its device's clock; forward moves asked first, backward ones never made, as KOReader's sync.",
        parameters: [DirectionChoice.parameter.declaration, forwardParameter.declaration, backwardParameter.declaration],
        examples: NewerForwardOnlyPolicy.scenarios
    ) { options in
        .merge(
            NewerForwardOnlyPolicy(
                direction: options(DirectionChoice.parameter), forward: options(forwardParameter), backward: options(backwardParameter)))
    }

    public let direction: DirectionChoice
    public let forward: Move
    public let backward: Move

    public init(
        direction: DirectionChoice = DirectionChoice.parameter.defaultValue, forward: Move = forwardParameter.defaultValue,
        backward: Move = backwardParameter.defaultValue
    ) {
        self.direction = direction
        self.forward = forward
        self.backward = backward
    }

    public var inputs: MergeInputs { .device }

    public func resolve(_ register: Register) -> Resolution {
        resolve(register, on: nil)
    }

    public func resolve(_ register: Register, on device: String?) -> Resolution {
        let newest = register.heads.max { a, b in
            a.savedAt != b.savedAt ? a.savedAt < b.savedAt : VersionVector.precedes(a.device, b.device)
        }
        guard let newest else { return .empty }
        guard let device, newest.device != device, let own = register.head(of: device), own.snapshot != nil, newest.snapshot != nil else {
            return Resolution(winner: newest, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "newest")
        }
        var isForward = true
        if let direction = direction.direction(in: register), let theirs = newest.progress, let mine = own.progress {
            isForward = direction.isFurther(theirs, than: mine)
        }
        switch isForward ? forward : backward {
        case .never:
            return Resolution(winner: own, candidates: register.heads, reason: isForward ? "newest is ahead: stays" : "newest is behind: stays")
        case .silent:
            return Resolution(winner: newest, candidates: register.heads, reason: isForward ? "newest, forward" : "newest, backward")
        case .prompt:
            return Resolution(
                winner: newest, candidates: register.heads, reason: isForward ? "newest, forward: asks" : "newest, backward: asks",
                offer: [newest, own])
        }
    }

    static let scenarios: [MergeScenario] = [
        MergeScenario(
            name: "a device behind the newest position asks before moving forward",
            records: [.example("laptop", 2, at: 100_000, "p20", created: 800), .example("phone", 6, at: 900_000, "p45", created: 550)],
            expectedWinner: 1, reason: "newest, forward: asks", device: "laptop", offer: [1, 0]),
        MergeScenario(
            name: "a move back made on another device never reaches this one",
            records: [
                .example("laptop", 2, at: 100_000, "p45", created: 550),
                .example("phone", 6, seen: [("laptop", 2)], at: 900_000, "p38", created: 620, explicit: true),
            ],
            expectedWinner: 0, reason: "newest is behind: stays", device: "laptop"),
        MergeScenario(
            name: "with Backward Silent, a newer position behind moves the reader back (koreader#16011)",
            records: [.example("laptop", 2, at: 100_000, "p45", created: 550), .example("phone", 6, at: 900_000, "p38", created: 620)],
            expectedWinner: 1, reason: "newest, backward", device: "laptop", parameters: ["Backward": .init(value: .string("Silent"))]),
        MergeScenario(
            name: "the device that wrote the newest position stays without asking",
            records: [.example("laptop", 2, at: 100_000, "p20", created: 800), .example("phone", 6, at: 900_000, "p45", created: 550)],
            expectedWinner: 1, reason: "newest", device: "phone"),
        MergeScenario(
            name: "a laptop an hour fast is the newest",
            records: [.example("laptop", 2, at: 3_700_000, "p20", created: 800), .example("phone", 6, at: 900_000, "p45", created: 550)],
            expectedWinner: 1, reason: "newest is behind: stays", device: "phone"),
    ]
}
