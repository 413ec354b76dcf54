import SyncModel

/// The `Direction` parameter of the merge policies that compare progress along a timeline:
/// `Learned` (the default) reads it from the register's own moves (`Register.learnedDirection`);
/// `Older` or `Newer` fixes it.
public enum DirectionChoice: String, ParameterChoice {
    /// The way most of the reader's saves to the register moved; none while they are even.
    case learned = "Learned"
    /// Reading down a newest-first feed from the top.
    case older = "Older"
    /// Catching up towards the newest posts, as read markers assume.
    case newer = "Newer"

    public static let parameter = Parameter<DirectionChoice>(
        "Direction",
        help: "Which way reading progresses: Learned (from the reader's own saves to the register), Older (reading down from the top) or Newer (catching up to the newest posts).",
        default: .learned)

    /// The direction to compare `register`'s heads in; nil when it is learned and the reader's
    /// saves show none yet.
    public func direction(in register: Register) -> ReadingDirection? {
        switch self {
        case .learned: register.learnedDirection
        case .older: .older
        case .newer: .newer
        }
    }
}
