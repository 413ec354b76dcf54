import Foundation
import TimelineCore

/// The position a restore starts from: the one rule every restore follows, in the façade,
/// `engine timeline fetch`, `engine restore --store` and the replay behind `engine compare`, so
/// that what `engine compare` measures is what an app gets.
///
/// - The live anchor wins: the reader is on this device now.
/// - Otherwise, when sync is on and the register's winner (by the merge policy) is another
///   device's position, that is where the reader is ("synced").
/// - Otherwise this device's own saved snapshot; with none, nothing (the pipeline's fallback).
///
/// The other devices' heads that did not win are offered as suggestions ("Continue from phone").
public struct RestoreStart: Sendable, Equatable {
    /// Where the input came from.
    public enum Source: String, Sendable, Equatable {
        /// The last scroll observation, with no launch since and not expired in the background.
        case liveAnchor = "live anchor"
        /// This device's most recent saved snapshot.
        case savedSnapshot = "saved snapshot"
        /// Another device's position, received by sync, that won the register.
        case synced = "synced from another device"
        /// Nothing was ever captured: the pipeline's fallback applies.
        case none = "no snapshot"
    }

    /// The snapshot to restore; nil when there is none.
    public var snapshot: PositionSnapshot?
    public var source: Source
    /// The device whose position it is, when synced.
    public var device: String?
    /// When synced: what this device's own state would have given instead.
    public var ownSnapshot: PositionSnapshot?
    public var ownSource: Source?
    /// The way the reader reads, as the register's moves (or the device's own saves) show it:
    /// what the restoration is given with the snapshot.
    public var direction: ReadingDirection?

    public init(snapshot: PositionSnapshot?, source: Source, device: String? = nil, ownSnapshot: PositionSnapshot? = nil, ownSource: Source? = nil) {
        self.snapshot = snapshot
        self.source = source
        self.device = device
        self.ownSnapshot = ownSnapshot
        self.ownSource = ownSource
    }

    /// Applies the rule on `device`: its own input (`own`, live or saved) and the register's
    /// winner by the merge policy (nil without sync).
    public static func choose(own: PositionSnapshot?, ownIsLive: Bool, winner: PositionRecord?, device: String?) -> RestoreStart {
        let ownSource: Source = own == nil ? .none : ownIsLive ? .liveAnchor : .savedSnapshot
        if ownSource != .liveAnchor, let winner, winner.device != device, let synced = winner.snapshot {
            return RestoreStart(snapshot: synced, source: .synced, device: winner.device, ownSnapshot: own, ownSource: ownSource)
        }
        return RestoreStart(snapshot: own, source: ownSource, device: device)
    }
}
