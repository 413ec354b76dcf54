import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineHTTPExchange
import TimelineEngineICloudKeyValueStore
import TimelineEngineNIOHTTP
import TimelineEnginePositionSync
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineSyncSealing
import TimelineEngineSyncWire
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The shared conformance suite for transports: every registered `transport` type runs its named
/// examples (`TransportScenario`) on an endpoint stood up here, each device syncing through a
/// store of its own as an app does. The endpoints are the only code per transport: a transport
/// needs somewhere for positions to go, and a new one fails here until it is given one.
@Suite("Transport conformance", .serialized, .timeLimit(.minutes(10)))
struct TransportConformanceTests {
    static let types = BuiltInStrategies.registry.types(of: .transport)
    static let scope = StoreScope(account: "default", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let tokenVariable = "ENGINE_CONFORMANCE_SYNC_TOKEN"

    /// Where a transport's positions go in the suite: its endpoint's parameters, how a device's
    /// transport is made (through the registry, unless the store is the process's own), what the
    /// service does between rounds, and what to stop afterwards.
    struct Endpoint {
        var parameters: Value.Dictionary = [:]
        var transport: ((_ device: String) -> any SyncTransport)?
        var settle: () -> Void = {}
        var stop: () -> Void = {}
    }

    static func endpoint(for name: String, in directory: URL) throws -> Endpoint {
        switch name {
        case "None":
            return Endpoint()
        case "Directory":
            return Endpoint(parameters: ["Path": Value.Member(value: .string(directory.path))])
        case "HTTP":
            let server = try LoopbackHTTPServer()
            let fake = HTTPTransportTests.FakeServer()
            server.handle("/v1/registers") { fake.handle($0, $1) }
            setenv(tokenVariable, "token-a", 1)
            return Endpoint(parameters: Self.serverParameters(server), stop: server.stop)
        case "MastodonMarkers":
            let server = try LoopbackHTTPServer()
            let stub = MastodonMarkersTests.MarkerStub()
            server.handle("/api/v1/markers") { request, body in stub.handle(request, body) }
            setenv(tokenVariable, MastodonMarkersTests.token, 1)
            return Endpoint(parameters: Self.serverParameters(server), stop: server.stop)
        case "iCloudKeyValueStore":
            // The store is the process's (`backend`); each device here gets a view of one model.
            let model = UbiquitousStoreModel()
            let devices = ["phone", "laptop", "tablet"]
            return Endpoint(
                transport: { ICloudKeyValueStoreTransport(store: model.view(for: $0)) },
                settle: {
                    model.upload()
                    for device in devices { model.deliver(to: device) }
                })
        default:
            throw StrategyError("the transport conformance suite has no endpoint for \(name): add one to TransportConformanceTests")
        }
    }

    static func serverParameters(_ server: LoopbackHTTPServer) -> Value.Dictionary {
        ["URL": Value.Member(value: .string(server.baseURL)), "TokenVariable": Value.Member(value: .string(tokenVariable))]
    }

    @Test("every transport has an endpoint here and examples to run")
    func everyTransportRuns() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for type in Self.types {
            #expect(!type.examples(of: TransportScenario.self).isEmpty, "\(type.name) has no examples")
            let endpoint = try Self.endpoint(for: type.name, in: directory)
            endpoint.stop()
        }
    }

    @Test("every named example delivers each device's head as it says", arguments: types.map(\.name))
    func examples(_ name: String) async throws {
        try await run(name, sealing: nil)
    }

    #if SyncEncryption
    /// The transports that store positions elsewhere as whole documents, and so can seal them.
    static let sealable = ["Directory", "HTTP", "iCloudKeyValueStore"]

    @Test("every transport that stores positions elsewhere can seal them; the others say they cannot")
    func sealableTransports() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var found: [String] = []
        for type in Self.types {
            let endpoint = try Self.endpoint(for: type.name, in: directory)
            defer { endpoint.stop() }
            let transport =
                try endpoint.transport?("phone")
                ?? BuiltInStrategies.registry.transport(ComponentSpec(name: type.name, parameters: endpoint.parameters))
            if transport is any SealableTransport { found.append(type.name) }
        }
        #expect(found == Self.sealable)
    }

    @Test("every named example delivers each device's head as it says, sealed end to end", arguments: sealable)
    func sealedExamples(_ name: String) async throws {
        try await run(name, sealing: SyncKeyring(current: try SyncKey(bytes: Array(repeating: 0x3C, count: SyncKey.byteCount))))
    }
    #endif

    /// Runs `name`'s examples, its transports sealing with `sealing` when given.
    func run(_ name: String, sealing: SyncKeyring?) async throws {
        HTTPExchanges.bootstrapIfNeeded(NIOHTTPExchange())
        let type = try #require(BuiltInStrategies.registry[name])
        for scenario in type.examples(of: TransportScenario.self) {
            let directory = try Fixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let endpoint = try Self.endpoint(for: name, in: directory.appendingPathComponent("shared", isDirectory: true).creatingFolder())
            defer { endpoint.stop() }
            var parameters = scenario.parameters
            for (key, member) in endpoint.parameters { parameters[key] = member }
            func transport(_ device: String) throws -> any SyncTransport {
                let made = try endpoint.transport?(device) ?? BuiltInStrategies.registry.transport(ComponentSpec(name: name, parameters: parameters))
                guard let sealing else { return made }
                return try #require(made as? any SealableTransport).sealing(with: sealing)
            }
            var stores: [String: TimelineStore] = [:]
            func store(_ device: String) async throws -> TimelineStore {
                if let store = stores[device] { return store }
                let store = try await TimelineStore(path: directory.appendingPathComponent("\(device).sqlite").path)
                stores[device] = store
                return store
            }
            for (step, save) in scenario.saves.enumerated() {
                let at = Self.start.addingTimeInterval(Double(60 * step))
                let created = Date(timeIntervalSince1970: Double(UInt64(save.postId).map { $0 >> 16 } ?? 0) / 1000)
                let device = try await store(save.device)
                try await device.sync.savePosition(
                    PositionSnapshot(postId: save.postId, postCreatedAt: created), scope: Self.scope, device: save.device, at: at)
                let components = SyncComponents.with(policy: CausalFurthestPolicy(), transport: try transport(save.device))
                _ = try await SyncRound(store: device, components: components, device: save.device, gracePeriod: 30 * 86_400)
                    .run(at: at.addingTimeInterval(1))
                endpoint.settle()
            }
            let pull = try await transport(scenario.reader).pull(device: scenario.reader)
            var heads: [String: PositionRecord] = [:]
            for record in pull.records where record.key == RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline) {
                if let kept = heads[record.device], kept.order >= record.order { continue }
                heads[record.device] = record
            }
            let received = heads.compactMapValues { $0.snapshot?.postId }
            #expect(received == scenario.expected, "\(name) / \(scenario.name)\(sealing == nil ? "" : ", sealed")")
        }
    }
}

extension URL {
    /// This folder, created if it is not there.
    fileprivate func creatingFolder() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
