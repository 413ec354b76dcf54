import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// A named example of a transport at work, run by the conformance suite on an endpoint it stands
/// up for the transport (a fresh folder, a loopback server, an in-memory store): each save in
/// `saves` is published in turn by its device, with that device's heads so far; then `reader`
/// pulls, and must receive exactly the heads `expected` names, device by device.
public struct TransportScenario: StrategyExample {
    /// One device's save of a post to the scenario's register.
    public struct Save: Sendable, Equatable {
        public let device: String
        public let postId: String

        public init(_ device: String, _ postId: String) {
            self.device = device
            self.postId = postId
        }
    }

    public let name: String
    public let saves: [Save]
    /// The device that pulls once every save is published.
    public let reader: String
    /// The post of each head the reader must receive, by the device it carries (a transport that
    /// carries a register's value alone names its own pseudo-device).
    public let expected: [String: String]
    /// The transport's parameters beyond its endpoint, which the suite supplies.
    public let parameters: Value.Dictionary

    public init(name: String, saves: [Save], reader: String, expected: [String: String], parameters: Value.Dictionary = [:]) {
        self.name = name
        self.saves = saves
        self.reader = reader
        self.expected = expected
        self.parameters = parameters
    }

    public var parameterValues: Value.Dictionary { parameters }
}

extension TransportScenario {
    /// The example every transport that carries each device's heads whole must pass: two devices
    /// save in turn, one of them twice, and a third reads each one's latest head.
    public static let everyDevicesLatestHead = TransportScenario(
        name: "a third device reads each device's latest head",
        saves: [Save("phone", "109000000000000010"), Save("laptop", "109000000000000020"), Save("phone", "109000000000000030")],
        reader: "tablet", expected: ["phone": "109000000000000030", "laptop": "109000000000000020"])
}
