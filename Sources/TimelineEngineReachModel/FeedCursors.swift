/// How a source that pages only from the top (Bluesky) makes and takes its cursors: what the
/// simulated server does (`PagedTimeline.cursors`) and what reach scenarios run against.
public enum FeedCursors: String, Sendable, CaseIterable {
    /// The reference AppView's (`TimeCidKeyset`): a page's cursor is `<ms>__<cid>` of its last
    /// post, and any cursor of that shape is honoured: the posts whose time and CID come after
    /// it, in the feed's order.
    case timeKeyed = "time-keyed"
    /// Positions that say nothing of time (`i:<n>`), as a feed generator's may be; a cursor the
    /// server did not give is refused as malformed.
    case opaque
    /// Time-keyed in shape, but only the cursors the server gave are honoured, as a server that
    /// signs its cursors would: any other is refused.
    case issuedOnly = "issued-only"
}
