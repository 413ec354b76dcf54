import Foundation
import TimelineEngineCore

/// One line after the header: something that happened at `at`.
public struct SessionEvent: Sendable, Equatable {
    /// Why a `timeline` event replaced the whole timeline.
    public enum TimelineReason: String, Sendable, CaseIterable, Equatable {
        case initial, refresh, relaunch, replace
    }

    /// The app's lifecycle, as the position tracker sees it.
    public enum Lifecycle: String, Sendable, CaseIterable, Equatable {
        case background, foreground, terminate, launch
    }

    /// Where the reader truly was at a restore point.
    public struct Expected: Sendable, Equatable {
        public var postId: String
        /// Where the post's top edge was in the viewport, when known.
        public var viewportY: Double?
        /// The reader's reading had truly diverged across devices (version 2): two devices read
        /// different parts concurrently, so an engine that asks where to continue is right to,
        /// and `postId` is the answer the reader gives. False: asking is a phantom prompt.
        public var diverged: Bool
        /// How many posts above `postId` the reader has not seen, counted as a reader would ("N new
        /// above you"): a boost or a re-draft of a post seen is not new, a deleted post is gone, the
        /// same content twice counts once. Nil where the session does not say.
        public var unread: Int?

        public init(postId: String, viewportY: Double? = nil, diverged: Bool = false, unread: Int? = nil) {
            self.postId = postId
            self.viewportY = viewportY
            self.diverged = diverged
            self.unread = unread
        }
    }

    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// Replaces the whole timeline, top first.
        case timeline(reason: TimelineReason, posts: [Post])
        /// Inserts posts at `index` (0 = top); an index past the end appends.
        case insert(index: Int, posts: [Post])
        /// Removes the posts with these ids.
        case remove(ids: [String])
        /// Replaces the posts with the same ids (an edit or a height change).
        case update(posts: [Post])
        /// The content offset of the viewport's top, in points. `explicit` (version 2): the reader
        /// moved back on purpose (jumped to a post, or scrolled up past what they had read), so
        /// the device's next save is an explicit move back.
        case scroll(offset: Double, explicit: Bool = false)
        case lifecycle(Lifecycle)
        /// A restore point: the engine is asked where the reader was; `expected` is the truth.
        case restore(tag: String?, expected: Expected)
        /// A sync delivery (version 2): device `to` receives what device `from` holds now.
        /// Delays, drops and reordering are when, and whether, these events come.
        case sync(from: String, to: String)
        /// A fetch (version 3): the device loads the server timeline's head page of `limit`
        /// posts and merges it into its own cache, with a gap where it does not meet it.
        case fetch(limit: Int)
    }

    public var at: Date
    public var kind: Kind
    /// The device it happened on (version 2); nil for the header's device.
    public var device: String?

    public init(at: Date, _ kind: Kind, device: String? = nil) {
        self.at = at
        self.kind = kind
        self.device = device
    }

    /// The `type` field this event is written with.
    public var typeName: String {
        switch kind {
        case .timeline: return "timeline"
        case .insert: return "insert"
        case .remove: return "remove"
        case .update: return "update"
        case .scroll: return "scroll"
        case .lifecycle: return "lifecycle"
        case .restore: return "restore"
        case .sync: return "sync"
        case .fetch: return "fetch"
        }
    }
}
