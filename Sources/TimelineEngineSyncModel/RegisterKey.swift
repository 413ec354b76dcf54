/// Which register: one per account and timeline. Its hash is computed once, since a merge
/// looks keys up millions of times.
public struct RegisterKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let account: String
    public let timeline: String
    private let hash: Int

    public init(account: String, timeline: String) {
        self.account = account
        self.timeline = timeline
        var hasher = Hasher()
        hasher.combine(account)
        hasher.combine(timeline)
        hash = hasher.finalize()
    }

    public static func == (lhs: RegisterKey, rhs: RegisterKey) -> Bool {
        lhs.hash == rhs.hash && lhs.account == rhs.account && lhs.timeline == rhs.timeline
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    public static func < (lhs: RegisterKey, rhs: RegisterKey) -> Bool {
        (lhs.account, lhs.timeline) < (rhs.account, rhs.timeline)
    }

    public var description: String { "\(account)/\(timeline)" }
}
