// swift-tools-version: 6.1
// A strategy plugin for TimelineEngine, written in Swift against the C ABI only
// (docs/PLUGINS.md). `swift build -c release` makes .build/release/libSameAuthorPlugin.so
// (.dylib on macOS), which `engine … --plugin PATH` loads without rebuilding the engine.
import PackageDescription

let package = Package(
    name: "SameAuthorPlugin",
    products: [
        .library(name: "SameAuthorPlugin", type: .dynamic, targets: ["SameAuthorPlugin"])
    ],
    dependencies: [
        // Only for the header: the plugin links no Swift module of the engine.
        .package(name: "TimelineEngine", path: "../..")
    ],
    targets: [
        .target(
            name: "SameAuthorPlugin",
            dependencies: [.product(name: "TimelineEnginePluginABI", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
