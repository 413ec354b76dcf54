/// How a register picks its value among the writes it has seen: a strict total order, of which
/// the register keeps the greatest. A max over a total order is commutative, associative and
/// idempotent, so replicas that have seen the same writes hold the same value whatever the
/// order, duplication or delay of delivery. The conformance suite checks this for every
/// registered policy.
public protocol MergePolicy: Sendable {
    /// The registered name.
    var name: String { get }
    /// True when `lhs` loses to `rhs`. Must be a strict total order on the writes of one
    /// register; end with `RegisterStamp` order to break every tie. Decide from the stamp, the
    /// epoch, the progress and whether it is a tombstone: the store merges rows without
    /// decoding their snapshots.
    func precedes(_ lhs: PositionRecord, _ rhs: PositionRecord) -> Bool
    /// The write's place in this order as bytes (`precedes(a, b)` exactly when
    /// `orderKey(a) < orderKey(b)`), so that a database can merge with one conditional upsert;
    /// nil for a policy that cannot say, which a sync server then refuses. The conformance suite
    /// checks that the two agree.
    func orderKey(of record: PositionRecord) -> OrderKey?
}

extension MergePolicy {
    public func orderKey(of record: PositionRecord) -> OrderKey? { nil }

    /// The winner of two writes.
    public func merge(_ lhs: PositionRecord, _ rhs: PositionRecord) -> PositionRecord {
        precedes(lhs, rhs) ? rhs : lhs
    }
}
