import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// The `Direction` parameter of the strategies that depend on which way reading goes (the merge
/// policies that compare progress, NeighborAnchor): `Learned` (the default) reads it from the
/// reader's own saves (`Register.learnedDirection`, or the request's `direction`); `Older` or
/// `Newer` fixes it.
public enum DirectionChoice: String, ParameterChoice {
    /// The way most of the reader's saves moved; none while they are even.
    case learned = "Learned"
    /// Reading down a newest-first feed from the top.
    case older = "Older"
    /// Catching up towards the newest posts, as read markers assume.
    case newer = "Newer"

    public static let parameter = Parameter<DirectionChoice>(
        "Direction",
        help:
            "Which way reading progresses: Learned (from the reader's own saves to the register), Older (reading down from the top) or Newer (catching up to the newest posts).",
        default: .learned)

    /// The direction this choice gives when the reader's saves show `learned`.
    public func resolve(learned: ReadingDirection?) -> ReadingDirection? {
        switch self {
        case .learned: learned
        case .older: .older
        case .newer: .newer
        }
    }

    /// The direction to compare `register`'s heads in; nil when it is learned and the reader's
    /// saves show none yet.
    public func direction(in register: Register) -> ReadingDirection? {
        resolve(learned: register.learnedDirection)
    }
}
