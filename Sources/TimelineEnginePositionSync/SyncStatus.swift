import Foundation

/// How syncing stands, for the UI.
public enum SyncStatus: Sendable, Equatable {
    /// Nothing has happened yet (or sync is off).
    case idle
    /// A round is running.
    case syncing
    /// The last round succeeded. `wrongClocks` names the devices whose writes were stamped
    /// more than `Sync.MaxClockOffset` ahead of this device's clock (taken in without moving it).
    case synced(at: Date, wrongClocks: [String])
    /// The transport cannot be reached; `pending` changes wait in the outbox.
    case offline(pending: Int)
    /// The last round failed; the next attempt is at `retryAt` when the network policy retries.
    case error(message: String, retryAt: Date?)
    /// The app is in the background: no change is heard and no round runs until it comes back;
    /// `pending` changes wait in the outbox.
    case paused(pending: Int)
}

/// A position that arrived from another device and that the app should act on.
public struct RemotePositionEvent: Sendable, Equatable {
    /// What the app should do with the position that arrived.
    public enum Action: Sendable, Equatable {
        /// This device had no position for the timeline: scroll there without asking.
        case move
        /// Offer it: "Continue from laptop, 3 min ago?"
        case suggest
    }

    public let account: String
    public let timeline: String
    public let postId: String
    /// The device that wrote it.
    public let device: String
    /// When it was written, by that device's clock.
    public let savedAt: Date
    public let action: Action
    /// Why it is the register's value, as the merge policy says ("one live head: it saw the
    /// others", "concurrent; furthest").
    public let reason: String

    public init(account: String, timeline: String, postId: String, device: String, savedAt: Date, action: Action, reason: String = "") {
        self.account = account
        self.timeline = timeline
        self.postId = postId
        self.device = device
        self.savedAt = savedAt
        self.action = action
        self.reason = reason
    }
}
