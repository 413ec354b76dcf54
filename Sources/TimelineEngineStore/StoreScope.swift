/// Whose state a row is: an account's timeline (`home`, a list, …).
public struct StoreScope: Sendable, Hashable {
    public var account: String
    public var timeline: String

    public init(account: String = "default", timeline: String = "home") {
        self.account = account
        self.timeline = timeline
    }
}
