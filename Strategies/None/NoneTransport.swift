import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// None: positions stay on this device. Chosen when `PositionPersistence.CrossSessionSync` is
/// false, whatever `Sync.Transport` says. A round pulls nothing and publishes nothing, and the
/// outbox is acknowledged at once: there is nowhere for it to go.
public struct NoneTransport: SyncTransport, DeclaredStrategy {
    public static let type = StrategyType(
        name: "None", kind: .transport,
        summary: "Positions stay on this device.",
        examples: [
            TransportScenario(
                name: "another device reads nothing", saves: [.init("phone", "109000000000000010")], reader: "laptop", expected: [:])
        ]
    ) { _ in
        .transport(NoneTransport())
    }

    public init() {}

    public func pull(device: String) async throws(SyncTransportError) -> SyncPull { SyncPull() }

    public func push(_ publication: SyncPublication) async throws(SyncTransportError) {}
}
