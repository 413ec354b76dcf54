/// A hybrid logical clock: never goes backwards, stays close to physical time, and orders
/// causally related events. `tick` stamps a local write; `observe` takes in a timestamp seen in
/// a remote write, so that every later local write sorts after it, whatever either device's
/// wall clock says.
///
/// The counter never overflows: past 65,535 events within one millisecond the clock moves to
/// the next millisecond. A remote timestamp far ahead of the local wall clock (a device whose
/// clock is wrong) still moves this clock forward: causality beats wall time, so a write made
/// after seeing it wins over it. `observe` reports how far ahead it was, so that the caller can
/// warn.
public struct HybridClock: Sendable, Equatable {
    /// The last timestamp this clock issued or observed.
    public private(set) var last: HybridTimestamp

    public init(last: HybridTimestamp = .zero) {
        self.last = last
    }

    /// A timestamp for a local event at wall time `wall` (milliseconds since 1970), greater than
    /// every timestamp issued or observed before.
    public mutating func tick(wall: UInt64) -> HybridTimestamp {
        let physical = min(wall, HybridTimestamp.maximumMilliseconds)
        if physical > last.milliseconds {
            last = HybridTimestamp(milliseconds: physical, counter: 0)
        } else if last.counter < UInt16.max {
            last = HybridTimestamp(rawValue: last.rawValue + 1)
        } else {
            last = HybridTimestamp(milliseconds: last.milliseconds + 1, counter: 0)
        }
        return last
    }

    /// Takes in `remote`, seen at wall time `wall`. Returns how many milliseconds `remote` was
    /// ahead of `wall` (0 when it was not).
    @discardableResult
    public mutating func observe(_ remote: HybridTimestamp, wall: UInt64) -> UInt64 {
        if remote > last { last = remote }
        return remote.milliseconds > wall ? remote.milliseconds - wall : 0
    }
}
