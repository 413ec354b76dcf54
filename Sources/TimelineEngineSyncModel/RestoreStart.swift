import Foundation
import TimelineEngineCore

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
/// When the merge policy asks rather than restores silently (`Resolution.offer`), the start
/// carries the positions to offer, its own first; a live anchor never asks.
public struct RestoreStart: Sendable, Equatable {
    /// A position the app offers the reader when the merge policy asks.
    public struct Choice: Sendable, Equatable {
        public var snapshot: PositionSnapshot
        /// The device whose position it is.
        public var device: String
        /// When that device saved it, by its own clock.
        public var savedAt: Date

        public init(snapshot: PositionSnapshot, device: String, savedAt: Date) {
            self.snapshot = snapshot
            self.device = device
            self.savedAt = savedAt
        }
    }

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
    /// The digests of the posts other devices read (`Register.reads(elsewhereThan:)`): with the
    /// device's own reads, what "N new above you" counts against.
    public var readElsewhere: Set<ReadDigest> = []
    /// The positions to offer the reader, the start's own first; empty: restore silently.
    public var offer: [Choice] = []
    /// Why the merge policy chose as it did, when it was asked.
    public var reason: String?

    /// Whether the app should ask the reader where to continue instead of restoring silently.
    public var prompts: Bool { offer.count > 1 }

    public init(snapshot: PositionSnapshot?, source: Source, device: String? = nil, ownSnapshot: PositionSnapshot? = nil, ownSource: Source? = nil) {
        self.snapshot = snapshot
        self.source = source
        self.device = device
        self.ownSnapshot = ownSnapshot
        self.ownSource = ownSource
    }

    /// The whole rule on `device`, from what it holds: its own input (`own`: the live anchor, or
    /// its newest saved snapshot) and the way its own moves read (`ownDirection`), and with sync
    /// the position register and the merge `policy`. The register's winner by the policy (when
    /// the device is not live), the positions it offers, the reading direction the register's
    /// moves show (with a policy), and what the other devices' heads say they read (whatever the
    /// policy). The façade, `engine restore --store`, the cache-first loader and the replay behind
    /// `engine compare` all start here.
    public static func decide(
        own: PositionSnapshot?, ownIsLive: Bool, ownDirection: ReadingDirection?, register: Register?, policy: (any MergePolicy)?,
        device: String?
    ) -> RestoreStart {
        let resolution = ownIsLive ? nil : register.flatMap { register in policy.map { $0.resolve(register, on: device) } }
        var start = choose(own: own, ownIsLive: ownIsLive, resolution: resolution, device: device)
        start.direction = (policy != nil ? register?.learnedDirection : nil) ?? ownDirection
        start.readElsewhere = register?.reads(elsewhereThan: device ?? "") ?? []
        return start
    }

    /// Applies the rule on `device`: its own input (`own`, live or saved) and the register's
    /// winner by the merge policy (nil without sync).
    public static func choose(own: PositionSnapshot?, ownIsLive: Bool, winner: PositionRecord?, device: String?) -> RestoreStart {
        choose(own: own, ownIsLive: ownIsLive, resolution: winner.map { Resolution(winner: $0, candidates: [$0], reason: "") }, device: device)
    }

    /// Applies the rule on `device` with the merge policy's whole `resolution` (nil without
    /// sync): its winner as above, and the positions it offers, unless the live anchor answers.
    public static func choose(own: PositionSnapshot?, ownIsLive: Bool, resolution: Resolution?, device: String?) -> RestoreStart {
        var start = chooseStart(own: own, ownIsLive: ownIsLive, winner: resolution?.winner, device: device)
        guard let resolution, !ownIsLive else { return start }
        start.reason = resolution.reason.isEmpty ? nil : resolution.reason
        guard resolution.prompts, let snapshot = start.snapshot else { return start }
        var offer = [Choice(snapshot: snapshot, device: start.device ?? device ?? "", savedAt: snapshot.savedAt ?? .distantPast)]
        for record in resolution.offer {
            // This device's own head is offered as what it saved itself.
            let offered = record.device == device ? own ?? record.snapshot : record.snapshot
            guard let offered, !offer.contains(where: { $0.snapshot.postId == offered.postId }) else { continue }
            offer.append(Choice(snapshot: offered, device: record.device, savedAt: record.savedAt))
        }
        if offer.count > 1 { start.offer = offer }
        return start
    }

    private static func chooseStart(own: PositionSnapshot?, ownIsLive: Bool, winner: PositionRecord?, device: String?) -> RestoreStart {
        let ownSource: Source = own == nil ? .none : ownIsLive ? .liveAnchor : .savedSnapshot
        if ownSource != .liveAnchor, let winner, winner.device != device, let synced = winner.snapshot {
            return RestoreStart(snapshot: synced, source: .synced, device: winner.device, ownSnapshot: own, ownSource: ownSource)
        }
        return RestoreStart(snapshot: own, source: ownSource, device: device)
    }
}
