/// The total order of writes: hybrid timestamp, then device id (by Unicode scalars, the same on
/// every platform). Two different writes never compare equal, because one device never issues
/// the same timestamp twice. Every merge policy breaks its ties with this order, and this is
/// the one place it is written.
public struct RegisterStamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let time: HybridTimestamp
    public let device: String

    public init(time: HybridTimestamp, device: String) {
        self.time = time
        self.device = device
    }

    public static let zero = RegisterStamp(time: .zero, device: "")

    public static func < (lhs: RegisterStamp, rhs: RegisterStamp) -> Bool {
        if lhs.time != rhs.time { return lhs.time < rhs.time }
        return lhs.device.unicodeScalars.lexicographicallyPrecedes(rhs.device.unicodeScalars)
    }

    public var description: String { "\(time)@\(device)" }
}
