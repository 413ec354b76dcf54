// swift-tools-version: 6.1
import Foundation
import PackageDescription

/// `ENGINE_COVERAGE=1 swift test …` instruments this package's own modules for line coverage
/// (CI's floors, `Tests/coverage.py`), and not its dependencies, which SwiftPM's
/// `--enable-code-coverage` would compile a second time: a coverage build then reuses the
/// dependencies of an ordinary build. Unset, the package has no unsafe flags.
let coverage = Context.environment["ENGINE_COVERAGE"] == "1"

let swiftSettings: [SwiftSetting] =
    [
        .swiftLanguageMode(.v6)
    ] + (coverage ? [.unsafeFlags(["-profile-generate", "-profile-coverage-mapping"])] : [])

/// The profiling runtime for an instrumented build, linked into every product through TimelineEngineValueTree,
/// which every product of the package links.
let linkerSettings: [LinkerSetting] = coverage ? [.unsafeFlags(["-profile-generate"])] : []

/// The built-in strategies: every folder under `Strategies/` is one, its own target, with a test
/// target when `Tests/Strategies/<Name>Tests/` exists (the shared conformance suites run every
/// strategy's examples without one). `Strategies/generate.sh` writes the registry's list,
/// `BuiltInStrategies.swift`, from the same folders.
let strategyNames = ((try? FileManager.default.contentsOfDirectory(atPath: "\(Context.packageDirectory)/Strategies")) ?? [])
    .filter { name in
        guard !name.hasPrefix(".") else { return false }
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: "\(Context.packageDirectory)/Strategies/\(name)", isDirectory: &isFolder) && isFolder.boolValue
    }
    .sorted { $0.lowercased() < $1.lowercased() }

/// The package trait that adds `engine serve` and the `TimelineEngineSyncServer` library: Hummingbird,
/// postgres-nio, swift-crypto and swift-prometheus are built only with it
/// (`swift build --traits SyncServer`).
let server = "SyncServer"

/// The command line's HTTP client: AsyncHTTPClient by default (`NIOClient`, which builds SwiftNIO
/// and BoringSSL), or URLSession with `URLSessionClient` (FoundationNetworking on Linux: nothing
/// to build, but libcurl and its libraries load into every command, and the engine cannot link
/// the runtime in). `--traits` replaces the default traits, so `--traits URLSessionClient` builds
/// no NIO client. The SyncServer trait enables `NIOClient`, as the server builds SwiftNIO anyway.
/// The two together do not build the engine on Linux (`Sources/TimelineEngineCLI/main.swift` says why).
let urlSessionClient = "URLSessionClient"
let nioClient = "NIOClient"

/// How `engine` links on Linux with the NIO client: the Swift runtime and Foundation linked in
/// (`-static-stdlib`), and none of its own symbols exported (the runtime's link options export
/// every one; plugins need none, as they speak a C ABI), so that the loader has little to do
/// before `main` and `engine validate` starts about as soon as `plutil -lint` does
/// (docs/PERFORMANCE.md). The modules were compiled against the shared Foundation, whose link
/// entries do not name the static one's own libraries, so they are named here; ld.lld, which
/// the toolchain ships, finds them in any order. Only the executable links so: the libraries an
/// app embeds have no such setting, and the tests link the shared runtime as before.
let engineLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "--no-export-dynamic",
            "-lCoreFoundation", "-l_FoundationCShims", "-l_FoundationCollections", "-l_FoundationICU", "-lswiftSynchronization",
        ],
        .when(platforms: [.linux], traits: [nioClient]))
]

/// End-to-end sealed sync (`TimelineEngineSyncSealing`, `Sync.EncryptionPhraseVariable`): swift-crypto's
/// ChaCha20-Poly1305, HMAC and HKDF, and scrypt from its extras, which build BoringSSL on Linux
/// (docs/PERFORMANCE.md has what it adds). Without it, a configured phrase is a clear error.
/// The SyncServer trait enables it, for its tests.
let syncEncryption = "SyncEncryption"

/// The engine as a swift-service-lifecycle `Service` (`TimelineEngine: Service`), for an app or a
/// server that runs its services in a `ServiceGroup`: its `run()` then also returns on the
/// group's graceful shutdown. The SyncServer trait enables it, for its tests.
let serviceLifecycle = "ServiceLifecycle"

/// A dependency on `product` of `package` that only the SyncServer trait builds.
func serverOnly(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [server]))
}

/// What each built-in strategy needs beyond TimelineEngineStrategyKit, TimelineEngineCore and TimelineEngineValueTree: the module
/// that declares its kind, and any other. One line per strategy.
let strategyDependencies: [String: [Target.Dependency]] = [
    "AuthorRun": ["TimelineEngineRestorationModel"],
    "BestConfidence": ["TimelineEngineRestorationModel"],
    "CacheChain": ["TimelineEngineCacheModel"],
    "CacheOnly": ["TimelineEngineReachModel"],
    "CausalFurthest": ["TimelineEngineSyncModel"],
    "ContentSimilarity": ["TimelineEngineRestorationModel", "TimelineEngineSearch"],
    "Directory": ["TimelineEngineSyncModel", "TimelineEngineSupport", "TimelineEngineSyncWire"],
    "ExactMatch": ["TimelineEngineRestorationModel"],
    "ExponentialBackoff": ["TimelineEngineReachModel"],
    "Fallback": ["TimelineEngineRestorationModel", "TimelineEngineConfiguration"],
    "FirstMatch": ["TimelineEngineRestorationModel", "TimelineEngineConfiguration"],
    "FurthestRead": ["TimelineEngineSyncModel"],
    "FurthestWithPrompt": ["TimelineEngineSyncModel"],
    "HTTP": ["TimelineEngineSyncModel", "TimelineEngineHTTPExchange", "TimelineEngineSyncWire"],
    "iCloudKeyValueStore": ["TimelineEngineSyncModel", "TimelineEngineSupport", "TimelineEngineSyncWire"],
    "LastWriterWins": ["TimelineEngineSyncModel"],
    "LRU": ["TimelineEngineCacheModel"],
    "MarkerArrival": ["TimelineEngineSyncModel"],
    "MastodonMarkers": ["TimelineEngineSyncModel", "TimelineEngineHTTPExchange", "TimelineEngineSupport"],
    "NeighborAnchor": ["TimelineEngineRestorationModel", "TimelineEngineReachModel", "TimelineEngineSyncModel"],
    "NewerForwardOnly": ["TimelineEngineSyncModel"],
    "None": ["TimelineEngineSyncModel"],
    "NoRetry": ["TimelineEngineReachModel"],
    "OnePage": ["TimelineEngineReachModel"],
    "Overwrite": ["TimelineEngineSyncModel"],
    "PostWindow": ["TimelineEngineReachModel"],
    "SizeBounded": ["TimelineEngineCacheModel"],
    "TemporalProximity": ["TimelineEngineRestorationModel"],
    "TopPages": ["TimelineEngineReachModel"],
    "TTL": ["TimelineEngineCacheModel"],
    "ViewportAnchor": ["TimelineEngineRestorationModel"],
    "WallClock": ["TimelineEngineSyncModel"],
    "WeightedVote": ["TimelineEngineRestorationModel"],
]

/// A strategy's module: the prefix every target of the package shares, so that an app can add the
/// package beside any other (SwiftPM needs target names unique across a package graph), and the
/// strategy's name, its folder's.
func strategyModule(_ name: String) -> String { "TimelineEngine" + name.prefix(1).uppercased() + name.dropFirst() }

let strategyTargets: [Target] = strategyNames.flatMap { name -> [Target] in
    let target = Target.target(
        name: strategyModule(name), dependencies: ["TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineValueTree"] + (strategyDependencies[name] ?? []),
        path: "Strategies/\(name)", swiftSettings: swiftSettings)
    let tests = "Tests/Strategies/\(name)Tests"
    guard FileManager.default.fileExists(atPath: "\(Context.packageDirectory)/\(tests)") else { return [target] }
    return [
        target,
        .testTarget(
            name: "\(name)Tests",
            dependencies: [.target(name: strategyModule(name)), "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineStrategyTestSupport", "TimelineEngineTestSupport"]
                + (strategyDependencies[name] ?? []),
            path: tests, swiftSettings: swiftSettings),
    ]
}

let package = Package(
    name: "TimelineEngine",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "TimelineEngine", targets: ["TimelineEngineKit"]),
        // Replaying and comparing recorded sessions, and simulating them: what `engine compare`
        // and `engine simulate` are built on, for tools that want them as a library.
        .library(name: "TimelineEngineSessionComparison", targets: ["TimelineEngineSessionComparison", "TimelineEngineSessionReplay", "TimelineEngineSessionSimulation"]),
        .executable(name: "engine", targets: ["TimelineEngineCLI"]),
        // The C header a strategy plugin builds against (docs/PLUGINS.md).
        .library(name: "TimelineEnginePluginABI", targets: ["TimelineEngineCPlugin"]),
        // Loading plugins into a registry, for tools that want `--plugin` of their own.
        .library(name: "TimelineEngineStrategyPlugins", targets: ["TimelineEngineStrategyPlugins"]),
        // Cross-device sync on a store: the configured policy and transport, and sync rounds.
        .library(name: "TimelineEnginePositionSync", targets: ["TimelineEnginePositionSync"]),
        // HTTP clients to bootstrap (`HTTPExchanges`): AsyncHTTPClient, or the platform's URLSession.
        .library(name: "TimelineEngineNIOHTTP", targets: ["TimelineEngineNIOHTTP"]),
        .library(name: "TimelineEngineURLSessionHTTP", targets: ["TimelineEngineURLSessionHTTP"]),
        // The sync server, to run in a process of one's own (`engine serve` runs it); empty
        // unless the SyncServer trait is enabled.
        .library(name: "TimelineEngineSyncServer", targets: ["TimelineEngineSyncServer"]),
    ],
    traits: [
        .trait(
            name: server,
            description:
                "The sync server: engine serve and the SyncServer library, over Hummingbird, PostgreSQL (postgres-nio), swift-crypto and swift-prometheus.",
            enabledTraits: [nioClient, syncEncryption, serviceLifecycle]),
        .trait(
            name: serviceLifecycle,
            description:
                "The engine as a swift-service-lifecycle Service: run() also returns on a ServiceGroup's graceful shutdown."),
        .trait(
            name: syncEncryption,
            description:
                "Sync sealed end to end (Sync.EncryptionPhraseVariable, SyncKeyring): swift-crypto, which builds BoringSSL on Linux."),
        .trait(
            name: urlSessionClient,
            description:
                "The command line's HTTP through URLSession (FoundationNetworking on Linux): nothing more to build, but libcurl loads into every command."),
        .trait(
            name: nioClient,
            description:
                "The command line's HTTP through AsyncHTTPClient (SwiftNIO): the default; on Linux the engine links the runtime in and starts sooner."),
        .default(enabledTraits: [nioClient]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Virtual time for the tests of timers (the sync coordinator's); not linked by the products.
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.0.0"),
        // The sync server (`engine serve`) and the command line's HTTP: SwiftNIO, never in the library.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        // Restore outcomes an app publishes (`RestoreMetrics`): the API only; the app picks the backend.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.9.0"..<"5.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        // `swift package generate-documentation --target TimelineEngine` (DocC); not linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // libxml2, through a shim header that keeps its ICU part away from Foundation's.
        .systemLibrary(
            name: "TimelineEngineCLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // The value tree that property lists and JSON are read into.
        .target(
            name: "TimelineEngineValueTree",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: swiftSettings,
            linkerSettings: linkerSettings
        ),
        // JSON text with line and column numbers.
        .target(name: "TimelineEngineJSONText", dependencies: ["TimelineEngineValueTree"], swiftSettings: swiftSettings),
        // XML property lists: a libxml2 reader, the canonical writer, the typed JSON form.
        .target(
            name: "TimelineEnginePropertyList",
            dependencies: ["TimelineEngineCLibXML2", "TimelineEngineValueTree", "TimelineEngineJSONText"],
            swiftSettings: swiftSettings
        ),
        // A JSON Schema (draft 2020-12 subset) validator over the value tree.
        .target(name: "TimelineEngineJSONSchema", dependencies: ["TimelineEngineSupport", "TimelineEngineValueTree", "TimelineEngineJSONText"], swiftSettings: swiftSettings),
        // Categories, levels and sinks on top of swift-log.
        .target(
            name: "TimelineEngineLogging",
            dependencies: ["TimelineEngineSupport", "TimelineEngineValueTree", "TimelineEngineJSONText", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // SocialFusionTimelineConfiguration: its schema, model, loader and diagnostics.
        .target(
            name: "TimelineEngineConfiguration",
            dependencies: [
                "TimelineEngineValueTree", "TimelineEngineStrategyKit", "TimelineEngineJSONText", "TimelineEnginePropertyList", "TimelineEngineJSONSchema", "TimelineEngineLogging", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What a strategy is, of any kind: the StrategyType a registry holds, its kind, declared
        // parameters, examples and options. It knows no kind: each kind's module declares its own.
        .target(name: "TimelineEngineStrategyKit", dependencies: ["TimelineEngineValueTree"], swiftSettings: swiftSettings),
        // Restoration's kinds: the request, candidates, verdicts and the restoration, fallback and
        // positioning stages' protocols and scenarios.
        .target(name: "TimelineEngineRestorationModel", dependencies: ["TimelineEngineReachModel", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineValueTree"], swiftSettings: swiftSettings),
        // The cache policy kind: entries, the policy protocol and its scenarios.
        .target(name: "TimelineEngineCacheModel", dependencies: ["TimelineEngineStrategyKit", "TimelineEngineValueTree"], swiftSettings: swiftSettings),
        // Reaching a post the cache lacks: page requests and answers, the network policy and reach
        // strategy kinds, the run that drives a reach strategy, and their scenarios.
        .target(name: "TimelineEngineReachModel", dependencies: ["TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineFormats", "TimelineEngineValueTree"], swiftSettings: swiftSettings),
        // What every layer shares and no domain owns: `Locked`, the one lock type.
        .target(name: "TimelineEngineSupport", swiftSettings: swiftSettings),
        // The domain model: posts, timelines, the timeline index, snapshots, restorations. No I/O.
        .target(name: "TimelineEngineCore", dependencies: ["TimelineEngineSupport"], swiftSettings: swiftSettings),
        // Searching a timeline: the word index over its texts (TF-IDF), and an index's arrays
        // kept in files and mapped back.
        .target(name: "TimelineEngineSearch", dependencies: ["TimelineEngineCore", "TimelineEngineSupport"], swiftSettings: swiftSettings),
        // Timelines and snapshots as files: the engine's JSON, JSON Lines, Mastodon, Bluesky.
        .target(name: "TimelineEngineFormats", dependencies: ["TimelineEngineCore", "TimelineEngineValueTree", "TimelineEngineJSONText"], swiftSettings: swiftSettings),
        // The position tracker, the resume policy (soft and hard closes) and suggestions.
        .target(name: "TimelineEnginePositionTracking", dependencies: ["TimelineEngineCore", "TimelineEngineConfiguration"], swiftSettings: swiftSettings),
        // Cross-device sync's model: hybrid logical clocks, position registers and their total
        // order, replica state, merge policies and transports as protocols.
        .target(
            name: "TimelineEngineSyncModel", dependencies: ["TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings),
        // The sync wire format (JSON, versions 1 and 2), read and written by the transports and
        // the server: documents of the usual shape decoded straight from the bytes.
        .target(
            name: "TimelineEngineSyncWire", dependencies: ["TimelineEngineSyncModel", "TimelineEngineCore", "TimelineEngineFormats", "TimelineEngineJSONText", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings),
        // Sealing register heads end to end: keys from a recovery phrase or the app, sealed names,
        // rotation. Crypto only with the SyncEncryption trait.
        .target(
            name: "TimelineEngineSyncSealing",
            dependencies: [
                "TimelineEngineSyncModel", "TimelineEngineSyncWire",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: [syncEncryption])),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: [syncEncryption])),
            ],
            swiftSettings: swiftSettings),
        // A feed in memory answering as a Mastodon or Bluesky server pages (`PagedTimeline`): the
        // server of replayed sessions and of reach strategies' scenarios.
        .target(name: "TimelineEngineSimulatedServer", dependencies: ["TimelineEngineReachModel", "TimelineEngineCore"], swiftSettings: swiftSettings),
        // The registry of built-ins, pipelines built from the configuration or a spec, and the
        // configuration schema composed with the strategies' parameter schemas.
        .target(
            name: "TimelineEngineRestoration",
            dependencies: [
                "TimelineEngineRestorationModel", "TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineSupport", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineConfiguration", "TimelineEngineJSONSchema",
                "TimelineEngineJSONText", "TimelineEngineLogging", "TimelineEngineFormats", "TimelineEngineValueTree", "TimelineEngineSyncModel",
                .product(name: "Logging", package: "swift-log"),
            ]
                + strategyNames.map { .target(name: strategyModule($0)) },
            swiftSettings: swiftSettings
        ),
        // The C ABI of strategy plugins: one header, which plugins build against.
        .target(name: "TimelineEngineCPlugin"),
        // Loading strategy plugins through that ABI into a registry.
        .target(
            name: "TimelineEngineStrategyPlugins",
            dependencies: [
                "TimelineEngineRestorationModel", "TimelineEngineSupport", "TimelineEngineCPlugin", "TimelineEngineRestoration", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineFormats",
                "TimelineEngineConfiguration",
                "TimelineEngineJSONText", "TimelineEngineValueTree",
            ],
            swiftSettings: swiftSettings),
        // Recorded sessions: the JSON Lines format, its streaming reader, writer and recorder.
        .target(
            name: "TimelineEngineSessionFormat", dependencies: ["TimelineEngineSupport", "TimelineEngineCore", "TimelineEngineFormats", "TimelineEngineReachModel", "TimelineEngineJSONText", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings),
        // Replaying a session exactly as the format specifies, and scoring each restore point.
        .target(
            name: "TimelineEngineSessionReplay",
            dependencies: [
                "TimelineEngineRestorationModel", "TimelineEngineReachModel", "TimelineEngineSimulatedServer", "TimelineEngineSessionFormat", "TimelineEnginePositionTracking", "TimelineEngineRestoration", "TimelineEngineCore",
                "TimelineEngineConfiguration", "TimelineEngineSyncModel",
            ],
            swiftSettings: swiftSettings),
        // `engine compare`: candidate pipelines, streaming and parallel evaluation of sessions,
        // mergeable metrics and the report in table, JSON, CSV and HTML.
        .target(
            name: "TimelineEngineSessionComparison",
            dependencies: ["TimelineEngineSupport", "TimelineEngineSessionReplay", "TimelineEngineSessionFormat", "TimelineEngineRestoration", "TimelineEngineConfiguration", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings),
        // `engine simulate`: reading sessions simulated from real posts and published reading figures.
        .target(
            name: "TimelineEngineSessionSimulation", dependencies: ["TimelineEngineSessionFormat", "TimelineEnginePositionTracking", "TimelineEngineReachModel", "TimelineEngineCore"],
            swiftSettings: swiftSettings),
        // The engine's state in one SQLite file (GRDB, WAL): cached timelines, position history,
        // read posts, the last restoration; migrations, crash safety, maintenance by cache policy.
        .target(
            name: "TimelineEngineStore",
            dependencies: [
                "TimelineEngineCacheModel", "TimelineEngineSearch", "TimelineEngineCore", "TimelineEngineFormats", "TimelineEngineStrategyKit", "TimelineEngineJSONText", "TimelineEngineValueTree", "TimelineEngineSyncModel",
                "TimelineEngineLogging", "TimelineEngineSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Cross-device sync on a store: the configured merge policy and transport, and the
        // pull → merge → push round.
        .target(
            name: "TimelineEnginePositionSync",
            dependencies: ["TimelineEngineValueTree", "TimelineEngineFormats", "TimelineEngineSyncWire", "TimelineEngineSyncSealing",
                "TimelineEngineReachModel", "TimelineEngineSupport", "TimelineEngineSyncModel", "TimelineEngineCore", "TimelineEngineStore", "TimelineEngineRestoration", "TimelineEngineConfiguration",
                "TimelineEngineLogging",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Cache-first loading: timeline sources (file, Mastodon, Bluesky over HTTP), retries by
        // network policy, merging a refresh into the cache, restoring on the result.
        .target(
            name: "TimelineEngineLoading",
            dependencies: [
                "TimelineEngineRestorationModel", "TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineSupport", "TimelineEngineStore", "TimelineEngineRestoration", "TimelineEngineCore",
                "TimelineEngineFormats", "TimelineEngineValueTree", "TimelineEngineHTTPExchange", "TimelineEngineSyncModel",
                "TimelineEngineLogging", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The HTTP client protocol the library talks through, and its bootstrap; no networking.
        .target(name: "TimelineEngineHTTPExchange", dependencies: ["TimelineEngineSupport"], swiftSettings: swiftSettings),
        // The platform's URLSession as the HTTP client: the default on Apple platforms.
        .target(name: "TimelineEngineURLSessionHTTP", dependencies: ["TimelineEngineSupport", "TimelineEngineHTTPExchange"], swiftSettings: swiftSettings),
        // AsyncHTTPClient (SwiftNIO) as the HTTP client: the command line's.
        .target(
            name: "TimelineEngineNIOHTTP",
            dependencies: [
                "TimelineEngineHTTPExchange",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The library product: everything an app embeds.
        .target(
            name: "TimelineEngineKit",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineRestorationModel", "TimelineEngineCacheModel", "TimelineEngineSupport", "TimelineEngineSyncWire", "TimelineEngineSearch", "TimelineEngineValueTree", "TimelineEngineJSONText",
                "TimelineEnginePropertyList", "TimelineEngineJSONSchema", "TimelineEngineConfiguration", "TimelineEngineLogging",
                "TimelineEngineCore", "TimelineEngineStrategyKit", "TimelineEngineRestoration", "TimelineEngineFormats", "TimelineEnginePositionTracking",
                "TimelineEngineSessionFormat", "TimelineEngineStore", "TimelineEngineLoading", "TimelineEngineSyncModel", "TimelineEngineSyncSealing", "TimelineEnginePositionSync", "TimelineEngineHTTPExchange",
                .target(name: "TimelineEngineURLSessionHTTP", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: [serviceLifecycle])),
            ],
            swiftSettings: swiftSettings
        ),
        // The `engine` command-line tool's commands, kept in a library so tests can call them.
        .target(
            name: "TimelineEngineCommands",
            dependencies: [
                // The façade (which re-exports the library's modules) and the comparison, plugin and
                // server products only (Tests/check-imports.py holds the command line to them).
                "TimelineEngineKit", "TimelineEngineSessionComparison", "TimelineEngineSessionReplay", "TimelineEngineSessionSimulation", "TimelineEngineStrategyPlugins",
                .target(name: "TimelineEngineURLSessionHTTP", condition: .when(traits: [urlSessionClient])),
                .target(name: "TimelineEngineNIOHTTP", condition: .when(traits: [nioClient])),
                .target(name: "TimelineEngineSyncServer", condition: .when(traits: [server])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "TimelineEngineCLI", dependencies: ["TimelineEngineCommands"], swiftSettings: swiftSettings, linkerSettings: engineLinkerSettings),
        // `engine serve`: the sync server over Hummingbird, its storage in SQLite or PostgreSQL.
        .target(
            name: "TimelineEngineSyncServer",
            dependencies: [
                "TimelineEngineSupport", "TimelineEngineSyncModel", "TimelineEngineSyncWire", "TimelineEngineJSONText", "TimelineEngineValueTree", "TimelineEngineFormats",
                serverOnly("Hummingbird", "hummingbird"),
                serverOnly("ServiceLifecycle", "swift-service-lifecycle"),
                serverOnly("UnixSignals", "swift-service-lifecycle"),
                serverOnly("Prometheus", "swift-prometheus"),
                serverOnly("CoreMetrics", "swift-metrics"),
                serverOnly("Crypto", "swift-crypto"),
                serverOnly("PostgresNIO", "postgres-nio"),
                serverOnly("NIOSSL", "swift-nio-ssl"),
                serverOnly("NIOCore", "swift-nio"),
                serverOnly("NIOHTTP1", "swift-nio"),
                serverOnly("GRDB", "GRDB.swift"),
                serverOnly("Logging", "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "ValueTreeTests", dependencies: ["TimelineEngineValueTree"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncServerTests",
            dependencies: [
                "TimelineEngineSyncWire", "TimelineEngineSyncSealing", "TimelineEngineSupport",
                "TimelineEngineSyncServer", "TimelineEngineSyncModel", "TimelineEngineConfiguration", "TimelineEngineCore", "TimelineEngineTestSupport", "TimelineEngineStore", "TimelineEnginePositionSync", "TimelineEngineCausalFurthest",
                "TimelineEngineDirectory", "TimelineEngineHTTP",
                "TimelineEngineNIOHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                serverOnly("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JSONTextTests", dependencies: ["TimelineEngineJSONText", "TimelineEngineValueTree"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["TimelineEnginePropertyList", "TimelineEngineJSONText", "TimelineEngineTestSupport", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONSchemaTests",
            dependencies: ["TimelineEngineJSONSchema", "TimelineEngineJSONText", "TimelineEngineTestSupport", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: ["TimelineEngineConfiguration", "TimelineEngineLogging", "TimelineEnginePropertyList", "TimelineEngineTestSupport", "TimelineEngineValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TimelineLoggingTests",
            dependencies: ["TimelineEngineLogging", "TimelineEngineJSONText", "TimelineEngineTestSupport", "TimelineEngineValueTree", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EngineCommandsTests",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineCommands", "TimelineEngineTestSupport", "TimelineEngineStore", "TimelineEngineCore", "TimelineEngineRestoration", "TimelineEngineJSONText",
                "TimelineEngineStrategyKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RobustnessTests",
            dependencies: [
                "TimelineEngineRestorationModel",
                "TimelineEnginePropertyList", "TimelineEngineJSONText", "TimelineEngineConfiguration", "TimelineEngineTestSupport", "TimelineEngineSessionFormat", "TimelineEngineSessionReplay", "TimelineEngineRestoration",
                "TimelineEnginePositionTracking", "TimelineEngineSessionComparison", "TimelineEngineSessionSimulation", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineFormats",
                "TimelineEngineValueTree", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        // Builds and runs the packages under Examples/ as their users would.
        .testTarget(name: "ExamplesTests", dependencies: ["TimelineEngineTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "StrategyPluginsTests",
            dependencies: [
                "TimelineEngineRestorationModel", "TimelineEngineStrategyPlugins", "TimelineEngineRestoration", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineAuthorRun", "TimelineEngineTestSupport", "TimelineEngineSyncModel",
                "TimelineEngineSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PositionSyncTests",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineSyncWire", "TimelineEngineSyncSealing", "TimelineEnginePositionSync", "TimelineEngineSyncModel", "TimelineEngineStore", "TimelineEngineCore", "TimelineEngineConfiguration", "TimelineEngineStrategyKit",
                "TimelineEngineDirectory", "TimelineEngineFurthestRead", "TimelineEngineLastWriterWins", "TimelineEngineCausalFurthest", "TimelineEngineICloudKeyValueStore", "TimelineEngineHTTP", "TimelineEngineNIOHTTP", "TimelineEngineMastodonMarkers",
                "TimelineEngineTestSupport", "store-crash-writer", "TimelineEngineJSONSchema", "TimelineEngineJSONText", "TimelineEngineHTTPExchange", "TimelineEngineRestoration", "TimelineEngineValueTree", "TimelineEngineFormats",
                "TimelineEngineSessionSimulation", "TimelineEngineSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineCoreTests",
            dependencies: [
                "TimelineEngineSearch", "TimelineEngineCore", "TimelineEngineSupport", "TimelineEngineTestSupport", "TimelineEngineSessionSimulation",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StrategyKitTests",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineRestorationModel", "TimelineEngineStrategyKit", "TimelineEngineStrategyTestSupport", "TimelineEngineCore", "TimelineEngineValueTree", "TimelineEngineFirstMatch",
                "TimelineEngineBestConfidence", "TimelineEngineWeightedVote", "TimelineEngineSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "PositionTrackingTests", dependencies: ["TimelineEnginePositionTracking", "TimelineEngineCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineEngineTests",
            dependencies: ["TimelineEngineSupport", "TimelineEngineKit", "TimelineEngineTestSupport", "TimelineEngineStrategyKit", "TimelineEngineHTTPExchange", "TimelineEngineNIOHTTP", "TimelineEngineStrategyPlugins",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: [serviceLifecycle])),
                .product(name: "Clocks", package: "swift-clocks"), .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineFormatsTests", dependencies: ["TimelineEngineFormats", "TimelineEngineCore", "TimelineEngineTestSupport", "TimelineEngineJSONText"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "RestorationEngineTests",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineRestorationModel", "TimelineEngineSimulatedServer", "TimelineEngineRestoration", "TimelineEngineStrategyKit", "TimelineEngineCore",
                "TimelineEngineConfiguration", "TimelineEngineJSONSchema", "TimelineEngineJSONText", "TimelineEngineTestSupport",
                "TimelineEngineFormats", "TimelineEngineValueTree", "TimelineEngineSessionSimulation",
                "TimelineEngineStrategyTestSupport", "TimelineEngineFallback", "TimelineEngineFirstMatch", "TimelineEngineSyncModel",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SessionFormatTests", dependencies: ["TimelineEngineSessionFormat", "TimelineEngineCore", "TimelineEngineTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SessionReplayTests",
            dependencies: [
                "TimelineEngineSupport", "TimelineEngineSessionReplay", "TimelineEngineSessionFormat", "TimelineEngineSessionComparison", "TimelineEngineSessionSimulation", "TimelineEngineRestoration", "TimelineEngineFormats",
                "TimelineEngineConfiguration", "TimelineEnginePositionTracking", "TimelineEngineCore", "TimelineEngineJSONSchema", "TimelineEngineJSONText", "TimelineEngineTestSupport", "TimelineEngineSyncModel", "TimelineEngineValueTree",
                "TimelineEngineStrategyKit",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineStoreTests",
            dependencies: [
                "TimelineEngineStore", "TimelineEngineSupport", "TimelineEngineCore", "TimelineEngineFormats", "TimelineEngineStrategyKit", "TimelineEngineLRU", "TimelineEngineTTL", "TimelineEngineTestSupport", "store-crash-writer", "TimelineEngineSyncModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineLoadingTests",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineRestorationModel", "TimelineEngineSupport", "TimelineEngineLoading", "TimelineEngineStore", "TimelineEngineRestoration",
                "TimelineEngineConfiguration", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineFormats",
                "TimelineEngineValueTree", "TimelineEngineJSONText", "TimelineEngineTestSupport", "TimelineEngineHTTPExchange", "TimelineEngineNIOHTTP", "TimelineEngineURLSessionHTTP", "TimelineEngineSyncModel", "TimelineEngineCausalFurthest", "TimelineEnginePostWindow",
                "TimelineEngineSimulatedServer", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        // A child process for the store's crash test: writes until it is killed.
        .executableTarget(
            name: "store-crash-writer", dependencies: ["TimelineEngineStore", "TimelineEngineCore", "TimelineEngineLRU", "TimelineEnginePositionSync", "TimelineEngineConfiguration"],
            path: "Tests/StoreCrashWriter",
            swiftSettings: swiftSettings),
        // Fixture paths and helpers shared by the test targets.
        .target(
            name: "TimelineEngineTestSupport",
            dependencies: [
                "TimelineEngineReachModel", "TimelineEngineSimulatedServer", "TimelineEngineSupport", "TimelineEngineCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/TestSupport", swiftSettings: swiftSettings),
        // The conformance checks every strategy's tests run.
        .target(
            name: "TimelineEngineStrategyTestSupport", dependencies: ["TimelineEngineReachModel", "TimelineEngineCacheModel", "TimelineEngineRestorationModel", "TimelineEngineStrategyKit", "TimelineEngineCore", "TimelineEngineValueTree"],
            path: "Tests/StrategyTestSupport", swiftSettings: swiftSettings),
    ] + strategyTargets
)
