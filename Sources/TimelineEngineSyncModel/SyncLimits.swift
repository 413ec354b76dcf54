/// The lengths of what the sync wire carries, checked where a value enters: at a save, and in
/// every document read from a peer or a server. A device's own file then stays far below the
/// size other devices read (`records × (names + post id + snapshot)`), and no name becomes a file
/// name, a database key or a line of output too long to hold.
public enum SyncLimits {
    /// The most UTF-8 bytes of an account, a timeline or a device id.
    public static let maximumNameBytes = 256
    /// The most UTF-8 bytes of a post id.
    public static let maximumPostIdBytes = 512
    /// The most devices a write's causal context or clock bounds may name. A user has a handful
    /// of devices; a write naming 40,000 cost a server seconds to take in, and every device of
    /// the user again when it pulled it.
    public static let maximumDevicesPerWrite = 1_000
    /// The most devices whose heads a replica keeps in one register. A user has a handful of
    /// devices; anyone who can write a user's registers (a token holder, a writer of a shared
    /// folder) could post the heads of thousands, each valid on its own, and every device that
    /// took them in would then name them all in its next write's context, past
    /// `maximumDevicesPerWrite`, and stop syncing. A head of one more device is set aside
    /// (not kept, not relayed, its clock not learned) and reported; heads of devices the register
    /// already holds, and the replica's own, are always taken. A full register still takes a
    /// device that has heard this one (`heardOf`), in the place of one that never did
    /// (`stranger(in:to:)`): a flood of strangers' heads cannot shut out the reader's next device.
    public static let maximumDevicesPerRegister = 64

    /// Whether `record`'s writer had heard of a write of `device` (its causal context names it):
    /// a device of the same reader, not a stranger's.
    public static func heardOf(_ device: String, _ record: PositionRecord) -> Bool {
        record.context[device] > 0
    }

    /// Of a full register's heads, the one a head of a device that heard of `device` takes the
    /// place of: the first to arrive of those whose writers never heard of `device` (nor are it),
    /// or nil when every head's writer did.
    public static func stranger(in register: Register, to device: String) -> PositionRecord? {
        register.headsInArrivalOrder.first { $0.device != device && !heardOf(device, $0) }
    }

    /// Why a `what` (a context, clock bounds) naming `count` devices cannot be carried, or nil.
    public static func devicesProblem(_ count: Int, _ what: String) -> String? {
        count > maximumDevicesPerWrite ? "\(what) names \(count) devices, more than the limit of \(maximumDevicesPerWrite)" : nil
    }

    /// Why `value`, the `what` of a record (`account`, `timeline`, `device`), cannot be
    /// carried, or nil when it can: empty, too long, or holding a control character.
    public static func nameProblem(_ value: String, _ what: String) -> String? {
        if value.isEmpty { return "\(what) must not be empty" }
        if value.utf8.count > maximumNameBytes {
            return "\(what) is \(value.utf8.count) bytes long, more than the limit of \(maximumNameBytes)"
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "\(what) must not contain control characters"
        }
        return nil
    }

    /// Why `value` cannot be carried as a post id, or nil when it can.
    public static func postIdProblem(_ value: String, _ what: String = "post id") -> String? {
        if value.utf8.count > maximumPostIdBytes {
            return "\(what) is \(value.utf8.count) bytes long, more than the limit of \(maximumPostIdBytes)"
        }
        if value.unicodeScalars.contains(where: { $0.value == 0 }) { return "\(what) must not contain NUL" }
        return nil
    }
}
