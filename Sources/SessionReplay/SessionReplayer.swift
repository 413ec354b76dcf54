import Configuration
import Foundation
import PositionTracking
import RestorationEngine
import SessionFormat
import StrategyKit
import SyncModel
import TimelineCore

/// Replays a session's events, exactly as the session format specifies, and stops at each
/// restore point.
///
/// - The timeline is what the `timeline`, `insert`, `remove` and `update` events made it.
/// - The position tracker sees every `scroll` (offset, the header's viewport height, the
///   current timeline) and every lifecycle event: it saves on scrolls every `AutoSaveInterval`
///   seconds and once scrolling has rested for `AutoSaveSettleDelay` (a save due before an
///   event is made before it), saves on `background`, never on `terminate` (a save not yet due
///   is lost), and forgets the live anchor on `launch`.
/// - At a `restore`, the input is the most recent saved snapshot if a `launch` came after the
///   last scroll, or if the app stayed in the background longer than `AnchorMaxAge` since it;
///   otherwise the live anchor; with no snapshot at all, none (the pipeline's fallback
///   applies). A restore changes no tracker state.
/// - Devices (format version 2): scrolls, lifecycle events and restores with a `device` go to
///   that device's own tracker (the timeline is shared). Each save a tracker makes is a write to
///   its device's position register, stamped by the device's hybrid clock; `sync` gives device
///   `to` every write device `from` holds, merged by the configured policy. At a restore on a
///   device whose register's winner is another device's write, that position is the input
///   (`synced`), unless the live anchor answers (the reader is on this device now).
public struct SessionReplayer {
    public let header: SessionHeader
    public let settings: ReplaySettings
    public private(set) var timeline: ReplayTimeline
    /// The header device's tracker.
    public private(set) var tracker: PositionTracker
    public private(set) var resume = ResumeState()
    /// The other devices' trackers and resume states.
    public private(set) var otherDevices: [String: (tracker: PositionTracker, resume: ResumeState)] = [:]
    /// Each device's sync state and clock, when a merge policy applies.
    public private(set) var replicas: [String: (state: ReplicaState, clock: HybridClock)] = [:]
    private let mergePolicy: (any MergePolicy)?

    public init(header: SessionHeader, settings: ReplaySettings) {
        self.header = header
        self.settings = settings
        timeline = ReplayTimeline(viewportHeight: header.viewport.height)
        tracker = PositionTracker(settings: settings.tracker, deviceId: header.device)
        if let spec = settings.mergePolicy, case .merge(let policy)? = try? BuiltInStrategies.registry.build(StrategyNode(spec), kind: .merge) {
            mergePolicy = policy
        } else {
            mergePolicy = nil
        }
    }

    /// The register every device writes: the session's account and timeline.
    private var key: RegisterKey { RegisterKey(account: header.account ?? "default", timeline: header.timeline) }

    /// Runs `body` on the tracker and resume state of `device` (nil: the header's device), and,
    /// when a merge policy applies, records a new save as a register write.
    private mutating func onDevice(_ device: String?, at date: Date, _ body: (inout PositionTracker, inout ResumeState) -> Void) {
        let name = device ?? header.device
        var saved: PositionSnapshot?
        if name == header.device {
            let before = mergePolicy == nil ? nil : tracker.history.first
            body(&tracker, &resume)
            if mergePolicy != nil, tracker.history.first != before { saved = tracker.history.first }
        } else {
            var other = otherDevices[name] ?? (PositionTracker(settings: settings.tracker, deviceId: name), ResumeState())
            let before = mergePolicy == nil ? nil : other.tracker.history.first
            body(&other.tracker, &other.resume)
            otherDevices[name] = other
            if mergePolicy != nil, other.tracker.history.first != before { saved = other.tracker.history.first }
        }
        if let saved { write(saved, on: name, at: date) }
    }

    private mutating func write(_ snapshot: PositionSnapshot, on device: String, at date: Date) {
        guard let mergePolicy else { return }
        var replica = replicas[device] ?? (ReplicaState(), HybridClock())
        let stamp = RegisterStamp(time: replica.clock.tick(wall: UInt64(max(0, date.timeIntervalSince1970 * 1000))), device: device)
        let progress = header.feed == .chronological
            ? snapshot.postCreatedAt.map { PositionRecord.Progress(createdAt: $0.timeIntervalSince1970, postId: snapshot.postId) } : nil
        replica.state.apply(PositionRecord(key: key, stamp: stamp, savedAt: date, snapshot: snapshot, epoch: replica.state.epoch(of: key),
                                           progress: progress), policy: mergePolicy)
        replicas[device] = replica
    }

    /// Applies one event; returns the restore point when it is a `restore` event. `line` is the
    /// event's line in the file, carried into the restore point.
    public mutating func apply(_ event: SessionEvent, line: Int = 0) -> RestorePoint? {
        switch event.kind {
        case .timeline, .insert, .remove, .update:
            timeline.apply(event.kind)
        case .scroll(let offset):
            let (height, index) = (header.viewport.height, timeline.index())
            onDevice(event.device, at: event.at) { tracker, _ in tracker.observeScroll(offset: offset, viewportHeight: height, in: index, at: event.at) }
        case .lifecycle(let state):
            guard settings.persistenceEnabled, let lifecycle = PositionTracker.Lifecycle(rawValue: state.rawValue) else { break }
            let index = timeline.index()
            onDevice(event.device, at: event.at) { tracker, resume in
                tracker.observe(lifecycle, at: event.at, in: index)
                resume.observe(lifecycle, at: event.at)
            }
        case .sync(let from, let to):
            guard let mergePolicy, let sent = replicas[from]?.state.records else { break }
            var receiver = replicas[to] ?? (ReplicaState(), HybridClock())
            for record in sent {
                receiver.clock.observe(record.stamp.time, wall: UInt64(max(0, event.at.timeIntervalSince1970 * 1000)))
                receiver.state.apply(record, policy: mergePolicy)
            }
            replicas[to] = receiver
        case .restore(let tag, let expected):
            let name = event.device ?? header.device
            let (deviceTracker, deviceResume) = name == header.device
                ? (tracker, resume) : (otherDevices[name] ?? (PositionTracker(settings: settings.tracker, deviceId: name), ResumeState()))
            var input = deviceTracker.restoreInput(at: event.at)
            var source: RestorePoint.InputSource
            if input == nil {
                source = .none
            } else if !deviceTracker.launchedSinceLastScroll, let live = deviceTracker.liveAnchor, input == live,
                      !deviceTracker.liveAnchorExpired(at: event.at) {
                source = .liveAnchor
            } else {
                source = .savedSnapshot
            }
            // The register's winner, by the merge policy, when another device wrote it: unless
            // the reader is live on this device, that is where they are.
            if source != .liveAnchor, let winner = replicas[name]?.state.registers[key], winner.device != name, let synced = winner.snapshot {
                input = synced
                source = .synced
            }
            let close = deviceResume.close(under: settings.policy, at: event.at, hasHistory: input != nil || !deviceTracker.history.isEmpty)
            return RestorePoint(line: line, at: event.at, tag: tag ?? RestorePoint.untagged, expected: expected, input: input,
                                inputSource: source, close: close, index: timeline.index())
        }
        return nil
    }
}
