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

/// The profiling runtime for an instrumented build, linked into every product through ValueTree,
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

/// The package trait that adds `engine serve` and the `SyncServer` library: Hummingbird,
/// postgres-nio, swift-crypto and swift-prometheus are built only with it
/// (`swift build --traits SyncServer`).
let server = "SyncServer"

/// The command line's HTTP client: AsyncHTTPClient by default (`NIOClient`, which builds SwiftNIO
/// and BoringSSL), or URLSession with `URLSessionClient` (FoundationNetworking on Linux: nothing
/// to build, but libcurl and its libraries load into every command, and the engine cannot link
/// the runtime in). `--traits` replaces the default traits, so `--traits URLSessionClient` builds
/// no NIO client. The SyncServer trait enables `NIOClient`, as the server builds SwiftNIO anyway.
/// The two together do not build the engine on Linux (`Sources/engine/main.swift` says why).
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

/// End-to-end sealed sync (`SyncSealing`, `Sync.EncryptionPhraseVariable`): swift-crypto's
/// ChaCha20-Poly1305, HMAC and HKDF, and scrypt from its extras, which build BoringSSL on Linux
/// (docs/PERFORMANCE.md has what it adds). Without it, a configured phrase is a clear error.
/// The SyncServer trait enables it, for its tests.
let syncEncryption = "SyncEncryption"

/// A dependency on `product` of `package` that only the SyncServer trait builds.
func serverOnly(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [server]))
}

/// What each built-in strategy needs beyond StrategyKit, TimelineCore and ValueTree: the module
/// that declares its kind, and any other. One line per strategy.
let strategyDependencies: [String: [Target.Dependency]] = [
    "AuthorRun": ["RestorationModel"],
    "BestConfidence": ["RestorationModel"],
    "CacheChain": ["CacheModel"],
    "CacheOnly": ["ReachModel"],
    "CausalFurthest": ["SyncModel"],
    "ContentSimilarity": ["RestorationModel", "TimelineSearch"],
    "Directory": ["SyncModel", "EngineSupport", "SyncWire"],
    "ExactMatch": ["RestorationModel"],
    "ExponentialBackoff": ["ReachModel"],
    "Fallback": ["RestorationModel"],
    "FirstMatch": ["RestorationModel"],
    "FurthestRead": ["SyncModel"],
    "FurthestWithPrompt": ["SyncModel"],
    "HTTP": ["SyncModel", "HTTPExchange", "SyncWire"],
    "iCloudKeyValueStore": ["SyncModel", "EngineSupport", "SyncWire"],
    "LastWriterWins": ["SyncModel"],
    "LRU": ["CacheModel"],
    "MarkerArrival": ["SyncModel"],
    "MastodonMarkers": ["SyncModel", "HTTPExchange", "EngineSupport"],
    "NeighborAnchor": ["RestorationModel", "ReachModel", "SyncModel"],
    "NewerForwardOnly": ["SyncModel"],
    "None": ["SyncModel"],
    "NoRetry": ["ReachModel"],
    "OnePage": ["ReachModel"],
    "Overwrite": ["SyncModel"],
    "PostWindow": ["ReachModel"],
    "SizeBounded": ["CacheModel"],
    "TemporalProximity": ["RestorationModel"],
    "TopPages": ["ReachModel"],
    "TTL": ["CacheModel"],
    "ViewportAnchor": ["RestorationModel"],
    "WallClock": ["SyncModel"],
    "WeightedVote": ["RestorationModel"],
]

let strategyTargets: [Target] = strategyNames.flatMap { name -> [Target] in
    let target = Target.target(
        name: name, dependencies: ["StrategyKit", "TimelineCore", "ValueTree"] + (strategyDependencies[name] ?? []),
        path: "Strategies/\(name)", swiftSettings: swiftSettings)
    let tests = "Tests/Strategies/\(name)Tests"
    guard FileManager.default.fileExists(atPath: "\(Context.packageDirectory)/\(tests)") else { return [target] }
    return [
        target,
        .testTarget(
            name: "\(name)Tests",
            dependencies: [.target(name: name), "StrategyKit", "TimelineCore", "StrategyTestSupport", "TestSupport"]
                + (strategyDependencies[name] ?? []),
            path: tests, swiftSettings: swiftSettings),
    ]
}

let package = Package(
    name: "TimelineEngine",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "TimelineEngine", targets: ["TimelineEngine"]),
        // Replaying and comparing recorded sessions, and simulating them: what `engine compare`
        // and `engine simulate` are built on, for tools that want them as a library.
        .library(name: "SessionComparison", targets: ["SessionComparison", "SessionReplay", "SessionSimulation"]),
        .executable(name: "engine", targets: ["engine"]),
        // The C header a strategy plugin builds against (docs/PLUGINS.md).
        .library(name: "TimelinePluginABI", targets: ["CTimelinePlugin"]),
        // Loading plugins into a registry, for tools that want `--plugin` of their own.
        .library(name: "StrategyPlugins", targets: ["StrategyPlugins"]),
        // Cross-device sync on a store: the configured policy and transport, and sync rounds.
        .library(name: "PositionSync", targets: ["PositionSync"]),
        // HTTP clients to bootstrap (`HTTPExchanges`): AsyncHTTPClient, or the platform's URLSession.
        .library(name: "NIOHTTP", targets: ["NIOHTTP"]),
        .library(name: "URLSessionHTTP", targets: ["URLSessionHTTP"]),
        // The sync server, to run in a process of one's own (`engine serve` runs it); empty
        // unless the SyncServer trait is enabled.
        .library(name: "SyncServer", targets: ["SyncServer"]),
    ],
    traits: [
        .trait(
            name: server,
            description:
                "The sync server: engine serve and the SyncServer library, over Hummingbird, PostgreSQL (postgres-nio), swift-crypto and swift-prometheus.",
            enabledTraits: [nioClient, syncEncryption]),
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
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
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
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // The value tree that property lists and JSON are read into.
        .target(
            name: "ValueTree",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")],
            swiftSettings: swiftSettings,
            linkerSettings: linkerSettings
        ),
        // JSON text with line and column numbers.
        .target(name: "JSONText", dependencies: ["ValueTree"], swiftSettings: swiftSettings),
        // XML property lists: a libxml2 reader, the canonical writer, the typed JSON form.
        .target(
            name: "PropertyList",
            dependencies: ["CLibXML2", "ValueTree", "JSONText"],
            swiftSettings: swiftSettings
        ),
        // A JSON Schema (draft 2020-12 subset) validator over the value tree.
        .target(name: "JSONSchema", dependencies: ["EngineSupport", "ValueTree", "JSONText"], swiftSettings: swiftSettings),
        // Categories, levels and sinks on top of swift-log.
        .target(
            name: "TimelineLogging",
            dependencies: ["EngineSupport", "ValueTree", "JSONText", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // SocialFusionTimelineConfiguration: its schema, model, loader and diagnostics.
        .target(
            name: "EngineConfiguration",
            dependencies: [
                "ValueTree", "JSONText", "PropertyList", "JSONSchema", "TimelineLogging", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // What a strategy is, of any kind: the StrategyType a registry holds, its kind, declared
        // parameters, examples and options. It knows no kind: each kind's module declares its own.
        .target(name: "StrategyKit", dependencies: ["ValueTree"], swiftSettings: swiftSettings),
        // Restoration's kinds: the request, candidates, verdicts and the restoration, fallback and
        // positioning stages' protocols and scenarios.
        .target(name: "RestorationModel", dependencies: ["ReachModel", "StrategyKit", "TimelineCore", "ValueTree"], swiftSettings: swiftSettings),
        // The cache policy kind: entries, the policy protocol and its scenarios.
        .target(name: "CacheModel", dependencies: ["StrategyKit", "ValueTree"], swiftSettings: swiftSettings),
        // Reaching a post the cache lacks: page requests and answers, the network policy and reach
        // strategy kinds, the run that drives a reach strategy, and their scenarios.
        .target(name: "ReachModel", dependencies: ["StrategyKit", "TimelineCore", "TimelineFormats", "ValueTree"], swiftSettings: swiftSettings),
        // What every layer shares and no domain owns: `Locked`, the one lock type.
        .target(name: "EngineSupport", swiftSettings: swiftSettings),
        // The domain model: posts, timelines, the timeline index, snapshots, restorations. No I/O.
        .target(name: "TimelineCore", dependencies: ["EngineSupport"], swiftSettings: swiftSettings),
        // Searching a timeline: the word index over its texts (TF-IDF), and an index's arrays
        // kept in files and mapped back.
        .target(name: "TimelineSearch", dependencies: ["TimelineCore", "EngineSupport"], swiftSettings: swiftSettings),
        // Timelines and snapshots as files: the engine's JSON, JSON Lines, Mastodon, Bluesky.
        .target(name: "TimelineFormats", dependencies: ["TimelineCore", "ValueTree", "JSONText"], swiftSettings: swiftSettings),
        // The position tracker, the resume policy (soft and hard closes) and suggestions.
        .target(name: "PositionTracking", dependencies: ["TimelineCore", "EngineConfiguration"], swiftSettings: swiftSettings),
        // Cross-device sync's model: hybrid logical clocks, position registers and their total
        // order, replica state, merge policies and transports as protocols.
        .target(
            name: "SyncModel", dependencies: ["StrategyKit", "TimelineCore", "ValueTree"],
            swiftSettings: swiftSettings),
        // The sync wire format (JSON, versions 1 and 2), read and written by the transports and
        // the server: documents of the usual shape decoded straight from the bytes.
        .target(
            name: "SyncWire", dependencies: ["SyncModel", "TimelineCore", "TimelineFormats", "JSONText", "ValueTree"],
            swiftSettings: swiftSettings),
        // Sealing register heads end to end: keys from a recovery phrase or the app, sealed names,
        // rotation. Crypto only with the SyncEncryption trait.
        .target(
            name: "SyncSealing",
            dependencies: [
                "SyncModel", "SyncWire",
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: [syncEncryption])),
                .product(name: "CryptoExtras", package: "swift-crypto", condition: .when(traits: [syncEncryption])),
            ],
            swiftSettings: swiftSettings),
        // A feed in memory answering as a Mastodon or Bluesky server pages (`PagedTimeline`): the
        // server of replayed sessions and of reach strategies' scenarios.
        .target(name: "SimulatedServer", dependencies: ["ReachModel", "TimelineCore"], swiftSettings: swiftSettings),
        // The registry of built-ins, pipelines built from the configuration or a spec, and the
        // configuration schema composed with the strategies' parameter schemas.
        .target(
            name: "RestorationEngine",
            dependencies: [
                "RestorationModel", "ReachModel", "CacheModel", "EngineSupport", "StrategyKit", "TimelineCore", "EngineConfiguration", "JSONSchema",
                "JSONText", "TimelineLogging", "TimelineFormats", "ValueTree", "SyncModel",
                .product(name: "Logging", package: "swift-log"),
            ]
                + strategyNames.map { .target(name: $0) },
            swiftSettings: swiftSettings
        ),
        // The C ABI of strategy plugins: one header, which plugins build against.
        .target(name: "CTimelinePlugin"),
        // Loading strategy plugins through that ABI into a registry.
        .target(
            name: "StrategyPlugins",
            dependencies: [
                "RestorationModel", "EngineSupport", "CTimelinePlugin", "RestorationEngine", "StrategyKit", "TimelineCore", "TimelineFormats",
                "EngineConfiguration",
                "JSONText", "ValueTree",
            ],
            swiftSettings: swiftSettings),
        // Recorded sessions: the JSON Lines format, its streaming reader, writer and recorder.
        .target(
            name: "SessionFormat", dependencies: ["EngineSupport", "TimelineCore", "TimelineFormats", "ReachModel", "JSONText", "ValueTree"],
            swiftSettings: swiftSettings),
        // Replaying a session exactly as the format specifies, and scoring each restore point.
        .target(
            name: "SessionReplay",
            dependencies: [
                "RestorationModel", "ReachModel", "SimulatedServer", "SessionFormat", "PositionTracking", "RestorationEngine", "TimelineCore",
                "EngineConfiguration", "SyncModel",
            ],
            swiftSettings: swiftSettings),
        // `engine compare`: candidate pipelines, streaming and parallel evaluation of sessions,
        // mergeable metrics and the report in table, JSON, CSV and HTML.
        .target(
            name: "SessionComparison",
            dependencies: ["EngineSupport", "SessionReplay", "SessionFormat", "RestorationEngine", "EngineConfiguration", "ValueTree"],
            swiftSettings: swiftSettings),
        // `engine simulate`: reading sessions simulated from real posts and published reading figures.
        .target(
            name: "SessionSimulation", dependencies: ["SessionFormat", "PositionTracking", "ReachModel", "TimelineCore"],
            swiftSettings: swiftSettings),
        // The engine's state in one SQLite file (GRDB, WAL): cached timelines, position history,
        // read posts, the last restoration; migrations, crash safety, maintenance by cache policy.
        .target(
            name: "TimelineStore",
            dependencies: [
                "CacheModel", "TimelineSearch", "TimelineCore", "TimelineFormats", "StrategyKit", "JSONText", "ValueTree", "SyncModel",
                "TimelineLogging", "EngineSupport",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Cross-device sync on a store: the configured merge policy and transport, and the
        // pull → merge → push round.
        .target(
            name: "PositionSync",
            dependencies: ["ValueTree", "TimelineFormats", "SyncWire", "SyncSealing",
                "ReachModel", "EngineSupport", "SyncModel", "TimelineCore", "TimelineStore", "RestorationEngine", "EngineConfiguration",
                "TimelineLogging",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // Cache-first loading: timeline sources (file, Mastodon, Bluesky over HTTP), retries by
        // network policy, merging a refresh into the cache, restoring on the result.
        .target(
            name: "TimelineLoading",
            dependencies: [
                "RestorationModel", "ReachModel", "CacheModel", "EngineSupport", "TimelineStore", "RestorationEngine", "TimelineCore",
                "TimelineFormats", "ValueTree", "HTTPExchange", "SyncModel",
                "TimelineLogging", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings),
        // The HTTP client protocol the library talks through, and its bootstrap; no networking.
        .target(name: "HTTPExchange", dependencies: ["EngineSupport"], swiftSettings: swiftSettings),
        // The platform's URLSession as the HTTP client: the default on Apple platforms.
        .target(name: "URLSessionHTTP", dependencies: ["EngineSupport", "HTTPExchange"], swiftSettings: swiftSettings),
        // AsyncHTTPClient (SwiftNIO) as the HTTP client: the command line's.
        .target(
            name: "NIOHTTP",
            dependencies: [
                "HTTPExchange",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The library product: everything an app embeds.
        .target(
            name: "TimelineEngine",
            dependencies: [
                "ReachModel", "RestorationModel", "CacheModel", "EngineSupport", "SyncWire", "TimelineSearch", "ValueTree", "JSONText",
                "PropertyList", "JSONSchema", "EngineConfiguration", "TimelineLogging",
                "TimelineCore", "StrategyKit", "RestorationEngine", "TimelineFormats", "PositionTracking",
                "SessionFormat", "TimelineStore", "TimelineLoading", "SyncModel", "SyncSealing", "PositionSync", "HTTPExchange",
                .target(name: "URLSessionHTTP", condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),
        // The `engine` command-line tool's commands, kept in a library so tests can call them.
        .target(
            name: "EngineCommands",
            dependencies: [
                // The façade (which re-exports the library's modules) and the comparison, plugin and
                // server products only (Tests/check-imports.py holds the command line to them).
                "TimelineEngine", "SessionComparison", "SessionReplay", "SessionSimulation", "StrategyPlugins",
                .target(name: "URLSessionHTTP", condition: .when(traits: [urlSessionClient])),
                .target(name: "NIOHTTP", condition: .when(traits: [nioClient])),
                .target(name: "SyncServer", condition: .when(traits: [server])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "engine", dependencies: ["EngineCommands"], swiftSettings: swiftSettings, linkerSettings: engineLinkerSettings),
        // `engine serve`: the sync server over Hummingbird, its storage in SQLite or PostgreSQL.
        .target(
            name: "SyncServer",
            dependencies: [
                "EngineSupport", "SyncModel", "SyncWire", "JSONText", "ValueTree", "TimelineFormats",
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

        .testTarget(name: "ValueTreeTests", dependencies: ["ValueTree"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncServerTests",
            dependencies: [
                "SyncWire", "SyncSealing", "EngineSupport",
                "SyncServer", "SyncModel", "EngineConfiguration", "TimelineCore", "TestSupport", "TimelineStore", "PositionSync", "CausalFurthest",
                "Directory", "HTTP",
                "NIOHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                serverOnly("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "JSONTextTests", dependencies: ["JSONText", "ValueTree"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PropertyListTests",
            dependencies: ["PropertyList", "JSONText", "TestSupport", "ValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "JSONSchemaTests",
            dependencies: ["JSONSchema", "JSONText", "TestSupport", "ValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ConfigurationTests",
            dependencies: ["EngineConfiguration", "TimelineLogging", "PropertyList", "TestSupport", "ValueTree"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TimelineLoggingTests",
            dependencies: ["TimelineLogging", "JSONText", "TestSupport", "ValueTree", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EngineCommandsTests",
            dependencies: [
                "ReachModel", "EngineCommands", "TestSupport", "TimelineStore", "TimelineCore", "RestorationEngine", "JSONText",
                "StrategyKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RobustnessTests",
            dependencies: [
                "RestorationModel",
                "PropertyList", "JSONText", "EngineConfiguration", "TestSupport", "SessionFormat", "SessionReplay", "RestorationEngine",
                "PositionTracking", "SessionComparison", "SessionSimulation", "StrategyKit", "TimelineCore", "TimelineFormats",
                "ValueTree", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        // Builds and runs the packages under Examples/ as their users would.
        .testTarget(name: "ExamplesTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "StrategyPluginsTests",
            dependencies: [
                "RestorationModel", "StrategyPlugins", "RestorationEngine", "StrategyKit", "TimelineCore", "AuthorRun", "TestSupport", "SyncModel",
                "EngineSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PositionSyncTests",
            dependencies: [
                "ReachModel", "SyncWire", "SyncSealing", "PositionSync", "SyncModel", "TimelineStore", "TimelineCore", "EngineConfiguration", "StrategyKit",
                "Directory", "FurthestRead", "LastWriterWins", "CausalFurthest", "iCloudKeyValueStore", "HTTP", "NIOHTTP", "MastodonMarkers",
                "TestSupport", "store-crash-writer", "JSONSchema", "JSONText", "HTTPExchange", "RestorationEngine", "ValueTree", "TimelineFormats",
                "SessionSimulation", "EngineSupport",
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineCoreTests", dependencies: ["TimelineSearch", "TimelineCore", "EngineSupport", "TestSupport", "SessionSimulation"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "StrategyKitTests",
            dependencies: [
                "ReachModel", "CacheModel", "RestorationModel", "StrategyKit", "StrategyTestSupport", "TimelineCore", "ValueTree", "FirstMatch",
                "BestConfidence", "WeightedVote", "EngineSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(name: "PositionTrackingTests", dependencies: ["PositionTracking", "TimelineCore"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineEngineTests",
            dependencies: ["EngineSupport", "TimelineEngine", "TestSupport", "StrategyKit", "HTTPExchange", "NIOHTTP", "StrategyPlugins",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "CoreMetrics", package: "swift-metrics"), .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineFormatsTests", dependencies: ["TimelineFormats", "TimelineCore", "TestSupport", "JSONText"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "RestorationEngineTests",
            dependencies: [
                "ReachModel", "CacheModel", "RestorationModel", "SimulatedServer", "RestorationEngine", "StrategyKit", "TimelineCore",
                "EngineConfiguration", "JSONSchema", "JSONText", "TestSupport",
                "TimelineFormats", "ValueTree", "SessionSimulation",
                "StrategyTestSupport", "Fallback", "FirstMatch", "SyncModel",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SessionFormatTests", dependencies: ["SessionFormat", "TimelineCore", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SessionReplayTests",
            dependencies: [
                "EngineSupport", "SessionReplay", "SessionFormat", "SessionComparison", "SessionSimulation", "RestorationEngine", "TimelineFormats",
                "EngineConfiguration", "PositionTracking", "TimelineCore", "JSONSchema", "JSONText", "TestSupport", "SyncModel", "ValueTree",
                "StrategyKit",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineStoreTests",
            dependencies: [
                "TimelineStore", "TimelineCore", "TimelineFormats", "StrategyKit", "LRU", "TTL", "TestSupport", "store-crash-writer", "SyncModel",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "TimelineLoadingTests",
            dependencies: [
                "ReachModel", "CacheModel", "RestorationModel", "EngineSupport", "TimelineLoading", "TimelineStore", "RestorationEngine",
                "EngineConfiguration", "StrategyKit", "TimelineCore", "TimelineFormats",
                "ValueTree", "JSONText", "TestSupport", "HTTPExchange", "NIOHTTP", "URLSessionHTTP", "SyncModel", "CausalFurthest", "PostWindow",
                "SimulatedServer", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: swiftSettings),
        // A child process for the store's crash test: writes until it is killed.
        .executableTarget(
            name: "store-crash-writer", dependencies: ["TimelineStore", "TimelineCore", "LRU", "PositionSync", "EngineConfiguration"],
            path: "Tests/StoreCrashWriter",
            swiftSettings: swiftSettings),
        // Fixture paths and helpers shared by the test targets.
        .target(
            name: "TestSupport",
            dependencies: [
                "ReachModel", "SimulatedServer", "EngineSupport", "TimelineCore", .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Tests/TestSupport", swiftSettings: swiftSettings),
        // The conformance checks every strategy's tests run.
        .target(
            name: "StrategyTestSupport", dependencies: ["ReachModel", "CacheModel", "RestorationModel", "StrategyKit", "TimelineCore", "ValueTree"],
            path: "Tests/StrategyTestSupport", swiftSettings: swiftSettings),
    ] + strategyTargets
)
