import Foundation
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineReachModel
import TimelineEngineRestorationModel
import TimelineEngineSessionFormat
import TimelineEngineSyncModel

/// The state of a replay at a `restore` event: what the pipeline is given, and the truth.
public struct RestorePoint: Sendable {
    /// Where the pipeline's input came from (the one rule, `RestoreStart`).
    public typealias InputSource = RestoreStart.Source

    /// The label used for a restore event without a tag.
    public static let untagged = "untagged"

    /// The restore event's line in the session file.
    public var line: Int
    public var at: Date
    public var tag: String
    public var expected: SessionEvent.Expected
    public var input: PositionSnapshot?
    public var inputSource: InputSource
    public var close: ResumePolicy.Close
    /// The timeline at the restore point.
    public var index: TimelineIndex
    /// The device restoring (version 2); the header's device otherwise.
    public var device: String?
    /// The reader was last active (scrolled) on another device: a device switch.
    public var afterSwitch = false
    /// What the restoring device has read (its tracker's `readPosts`): what "N new above you"
    /// counts against.
    public var read = ReadPosts() {
        didSet { unreadCounts = nil }
    }
    /// "N new above you" at every display index of `index` (`UnreadCount.counts`), made once
    /// for every pipeline scored here, when the session gives the count's truth.
    public var unreadCounts: [Int]?
    /// The positions the merge policy offers the reader, the input first, when it asks
    /// (`RestoreStart.offer`); empty: it restores silently.
    public var offer: [PositionSnapshot] = []
    /// When the input is `synced`: what this device's own state would have given instead.
    public var ownInput: (input: PositionSnapshot?, source: InputSource)?
    /// What reaching the input's post cost, when the device's own cache lacked it (version 3).
    public var reach: Reach?
    /// The way the reader reads, from the register's moves or the device's own saves.
    public var direction: ReadingDirection?
    /// What reaching the input's post learned from the server (version 3).
    public var findings = ReachFindings()
    /// The request every pipeline is given at this point.
    public var request: RestorationRequest {
        RestorationRequest(snapshot: input, index: index, direction: direction, findings: findings)
    }
    /// The server's timeline, when the device restores on a cache of its own (version 3):
    /// where the truth is measured, since the cache may lack the expected post.
    public var serverIndex: TimelineIndex?

    /// A reach at a restore point.
    public struct Reach: Sendable, Equatable {
        public var outcome: ReachRun.Outcome
        /// Requests beyond the head page.
        public var requests: Int
        public var bytes: Int
        /// True when the cache held the post and the strategy only checked that it still exists.
        public var checked = false
        /// What the answers told the restoration.
        public var findings = ReachFindings()

        public init(outcome: ReachRun.Outcome, requests: Int, bytes: Int) {
            self.outcome = outcome
            self.requests = requests
            self.bytes = bytes
        }
    }

    public init(
        line: Int, at: Date, tag: String, expected: SessionEvent.Expected, input: PositionSnapshot?,
        inputSource: InputSource, close: ResumePolicy.Close, index: TimelineIndex
    ) {
        self.line = line
        self.at = at
        self.tag = tag
        self.expected = expected
        self.input = input
        self.inputSource = inputSource
        self.close = close
        self.index = index
    }
}
