/// A hybrid logical clock: never goes backwards, stays close to physical time, and orders
/// causally related events. `tick` stamps a local write; `observe` takes in a timestamp seen in
/// a remote write, so that every later local write sorts after it.
///
/// The counter never overflows: past 65,535 events within one millisecond the clock moves to
/// the next millisecond.
///
/// A remote timestamp more than `maxOffset` ahead of the local wall clock comes from a device
/// whose clock is wrong (CockroachDB's maximum offset rule): it is taken in without moving this
/// clock, so that one device an hour or fifty years ahead cannot drag every later write of
/// every device after it. Causal order does not need it: a register's heads carry version
/// vectors, and the clock only breaks ties and dates writes.
public struct HybridClock: Sendable, Equatable {
    /// The last timestamp this clock issued or observed.
    public private(set) var last: HybridTimestamp

    /// A maximum offset given in seconds (`Sync.MaxClockOffset`), in the milliseconds `observe`
    /// takes; negative reads as 0, and beyond 10^12 s as 10^12 s.
    public static func maxOffset(seconds: Double) -> UInt64 {
        UInt64(max(0, min(seconds, 1e12)) * 1000)
    }

    public init(last: HybridTimestamp = .zero) {
        self.last = last
    }

    /// A timestamp for a local event at wall time `wall` (milliseconds since 1970), greater than
    /// every timestamp issued or observed before, until the clock reaches its largest value
    /// (the year 10889), where it stays.
    public mutating func tick(wall: UInt64) -> HybridTimestamp {
        let physical = min(wall, HybridTimestamp.maximumMilliseconds)
        if physical > last.milliseconds {
            last = HybridTimestamp(milliseconds: physical, counter: 0)
        } else if last.counter < UInt16.max {
            last = HybridTimestamp(rawValue: last.rawValue + 1)
        } else if last.milliseconds < HybridTimestamp.maximumMilliseconds {
            last = HybridTimestamp(milliseconds: last.milliseconds + 1, counter: 0)
        }
        return last
    }

    /// What `observe` did with a remote timestamp.
    public struct Observation: Sendable, Equatable {
        /// Milliseconds the remote timestamp was ahead of the local wall clock (0 when not).
        public var ahead: UInt64
        /// False when it was more than the maximum offset ahead, and left this clock alone.
        public var taken: Bool

        public init(ahead: UInt64, taken: Bool) {
            self.ahead = ahead
            self.taken = taken
        }
    }

    /// Takes in `remote`, seen at wall time `wall`, unless it is more than `maxOffset`
    /// milliseconds ahead of `wall` (nil: no limit).
    @discardableResult
    public mutating func observe(_ remote: HybridTimestamp, wall: UInt64, maxOffset: UInt64?) -> Observation {
        let ahead = remote.milliseconds > wall ? remote.milliseconds - wall : 0
        if let maxOffset, ahead > maxOffset { return Observation(ahead: ahead, taken: false) }
        if remote > last { last = remote }
        return Observation(ahead: ahead, taken: true)
    }
}
