// swift-tools-version: 6.1
// Benchmark harnesses, kept out of the main package so that its build stays small.
// Run them with Benchmarks/run.sh.
import PackageDescription

let package = Package(
    name: "TimelineEngineBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "TimelineEngine", path: ".."),
                   .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0")],
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
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine"),
                           .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "plugin-bench",
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine"),
                           .product(name: "StrategyPlugins", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "sync-bench",
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine"),
                           .product(name: "PositionSync", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "session-ingest",
            dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine"),
                           .product(name: "SessionComparison", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
