// swift-tools-version: 6.1
// Benchmark harnesses, kept out of the main package so that its build stays small.
// Run them with Benchmarks/run.sh.
import PackageDescription

let package = Package(
    name: "TimelineEngineBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "TimelineEngine", path: "..", traits: ["SyncServer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.30.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0", traits: []),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
    ],
    targets: [
        .executableTarget(
            name: "plist-read",
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "restore-bench",
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "store-bench",
            dependencies: [
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "plugin-bench",
            dependencies: [
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "TimelineEngineStrategyPlugins", package: "TimelineEngine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "sync-bench",
            dependencies: [
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "TimelineEnginePositionSync", package: "TimelineEngine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "rights-bench",
            dependencies: [
                .product(name: "TimelineEngineSyncServer", package: "TimelineEngine"),
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "server-bench",
            dependencies: [
                .product(name: "TimelineEngineSyncServer", package: "TimelineEngine"),
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "session-ingest",
            dependencies: [
                .product(name: "TimelineEngine", package: "TimelineEngine"),
                .product(name: "TimelineEngineSessionComparison", package: "TimelineEngine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
