import Foundation
import PositionTracking
import SessionFormat
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
public struct SessionReplayer {
    public let header: SessionHeader
    public let settings: ReplaySettings
    public private(set) var timeline: ReplayTimeline
    public private(set) var tracker: PositionTracker
    public private(set) var resume = ResumeState()

    public init(header: SessionHeader, settings: ReplaySettings) {
        self.header = header
        self.settings = settings
        timeline = ReplayTimeline(viewportHeight: header.viewport.height)
        tracker = PositionTracker(settings: settings.tracker, deviceId: header.device)
    }

    /// Applies one event; returns the restore point when it is a `restore` event. `line` is the
    /// event's line in the file, carried into the restore point.
    public mutating func apply(_ event: SessionEvent, line: Int = 0) -> RestorePoint? {
        switch event.kind {
        case .timeline, .insert, .remove, .update:
            timeline.apply(event.kind)
        case .scroll(let offset):
            tracker.observeScroll(offset: offset, viewportHeight: header.viewport.height, in: timeline.index(), at: event.at)
        case .lifecycle(let state):
            guard settings.persistenceEnabled, let lifecycle = PositionTracker.Lifecycle(rawValue: state.rawValue) else { break }
            tracker.observe(lifecycle, at: event.at, in: timeline.index())
            resume.observe(lifecycle, at: event.at)
        case .restore(let tag, let expected):
            let input = tracker.restoreInput(at: event.at)
            let source: RestorePoint.InputSource
            if input == nil {
                source = .none
            } else if !tracker.launchedSinceLastScroll, let live = tracker.liveAnchor, input == live,
                      !tracker.liveAnchorExpired(at: event.at) {
                source = .liveAnchor
            } else {
                source = .savedSnapshot
            }
            let close = resume.close(under: settings.policy, at: event.at, hasHistory: input != nil || !tracker.history.isEmpty)
            return RestorePoint(line: line, at: event.at, tag: tag ?? RestorePoint.untagged, expected: expected, input: input,
                                inputSource: source, close: close, index: timeline.index())
        }
        return nil
    }
}
