import Foundation
import PositionTracking
import SessionFormat
import TimelineCore

/// The state of a replay at a `restore` event: what the pipeline is given, and the truth.
public struct RestorePoint: Sendable {
    /// Where the pipeline's input came from.
    public enum InputSource: String, Sendable, Equatable {
        /// The last scroll observation, with no launch since and not expired in the background.
        case liveAnchor = "live anchor"
        /// The most recent saved snapshot.
        case savedSnapshot = "saved snapshot"
        /// Another device's position, received by sync, that won this device's register.
        case synced = "synced from another device"
        /// Nothing was ever captured: the pipeline's fallback applies.
        case none = "no snapshot"
    }

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
    /// When the input is `synced`: what this device's own state would have given instead.
    public var ownInput: (input: PositionSnapshot?, source: InputSource)?

    public init(line: Int, at: Date, tag: String, expected: SessionEvent.Expected, input: PositionSnapshot?,
                inputSource: InputSource, close: ResumePolicy.Close, index: TimelineIndex) {
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
