/// Which register: one per account and timeline.
public struct RegisterKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let account: String
    public let timeline: String

    public init(account: String, timeline: String) {
        self.account = account
        self.timeline = timeline
    }

    public static func < (lhs: RegisterKey, rhs: RegisterKey) -> Bool {
        (lhs.account, lhs.timeline) < (rhs.account, rhs.timeline)
    }

    public var description: String { "\(account)/\(timeline)" }
}
