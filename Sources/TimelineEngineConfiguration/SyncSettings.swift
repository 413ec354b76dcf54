import TimelineEngineValueTree

/// `Sync`: carrying the position across devices.
public struct SyncSettings: ConfigurationSection {
    public static let name = "Sync"
    public static let title = "Sync"
    public static let help = "Carrying the reading position across devices."

    /// The merge policy, as written (a name alone reads as a spec without parameters).
    @ComponentSetting(
        "Policy", title: "Merge policy", kind: "merge",
        help:
            "How a position register picks its value among each device's latest write: a registered merge policy's name (engine strategies list shows each with its parameters), or a dictionary with its name under Strategy and its parameters. The default, CausalFurthest, lets a write that saw the others win, and among concurrent writes sets glances aside and takes the later by the clocks' bounds, else the furthest along."
    )
    public var policy = ComponentSpec(name: "CausalFurthest")

    /// The transport, as written.
    @ComponentSetting(
        "Transport", title: "Transport", kind: "transport",
        help:
            "Where positions travel: a registered transport's name, or a dictionary with its name under Strategy and its parameters, e.g. {Strategy: Directory, Path: /Volumes/shared/timeline-sync}. None keeps them on this device, and applies whatever this says when PositionPersistence.CrossSessionSync is false."
    )
    public var transport = ComponentSpec(name: "None")

    /// Seconds to wait after a local change before a round.
    @Setting(
        "DebounceInterval", title: "Debounce interval", range: 0...3600,
        help: "Seconds to wait after a change before writing it out, so that scrolling does not flood the transport.")
    public var debounceInterval: Double = 3

    /// Seconds within which a remote position on the same post does not move the reader.
    @Setting(
        "SamePostDeadband", title: "Same-post deadband", range: 0...86_400,
        help: "Seconds within which two devices pointing at the same post are considered in agreement.")
    public var samePostDeadband: Double = 30

    /// Seconds a tombstone is kept.
    @Setting(
        "TombstoneGracePeriod", title: "Tombstone grace period", range: 86_400...3_153_600_000,
        help:
            "Seconds a forgotten position's tombstone is kept so that every device hears of it (2592000 = 30 days): at least a day, longer than any round takes, so that no save is forgotten before it is sent. A device that comes back after longer starts again from what the others hold, so it cannot bring a forgotten position back."
    )
    public var tombstoneGracePeriod: Double = 2_592_000

    /// Seconds another device's clock may be ahead of this one's and still move it.
    @Setting(
        "MaxClockOffset", title: "Maximum clock offset", range: 0...31_536_000,
        help:
            "Seconds another device's clock may be ahead of this one's. A write stamped further ahead is taken in without moving this device's hybrid clock, and its device is reported as having a wrong clock, so that one device an hour or fifty years ahead cannot drag every later write after it."
    )
    public var maxClockOffset: Double = 300

    /// The environment variable holding the recovery phrase heads are sealed with; empty: in the clear.
    @Setting(
        "EncryptionPhraseVariable", title: "Encryption phrase variable", pattern: TextPattern.environmentVariableOrEmpty,
        help:
            "The name of an environment variable that holds the recovery phrase positions are sealed with, end to end (the same on every device of the reader; engine sync phrase makes one): the transport then carries and stores only ciphertext and keyed hashes of the registers' and devices' names, and a sync server cannot read a position. Empty: positions travel in the clear. An app may supply its key instead (SyncKeyring). Needs the SyncEncryption trait; MastodonMarkers cannot seal."
    )
    public var encryptionPhraseVariable = ""

    /// The environment variable holding the phrase used before the current one, during a rotation.
    @Setting(
        "PreviousEncryptionPhraseVariable", title: "Previous encryption phrase variable", pattern: TextPattern.environmentVariableOrEmpty,
        help:
            "The name of an environment variable that holds the recovery phrase used before the current one: heads sealed under it stay readable until their devices write again under the new one. Empty: none."
    )
    public var previousEncryptionPhraseVariable = ""

    /// Key ids whose sealed positions the reader accepts leaving behind (their phrase is gone).
    @Setting(
        "LeftBehindKeyIds", title: "Left-behind key ids", pattern: TextPattern.keyIdsOrEmpty,
        help:
            "Key ids, separated by commas, whose sealed positions this device leaves behind: the phrase they were sealed with is gone (a rotation after a leak or a loss), so no device can open them. A round then skips them with a warning and goes on, even when it opens nothing else, where it would otherwise refuse to send anything. Empty: a device that opens none of the positions it reads refuses to send, since its phrase may be the wrong one."
    )
    public var leftBehindKeyIds = ""

    public init() {}
}
