// swift-tools-version: 6.1
// An app's own restoration strategy, in its own package, registered beside the built-ins
// without editing the engine (docs/ADDING_A_STRATEGY.md, "A strategy in your own package").
import PackageDescription

let package = Package(
    name: "PackageStrategy",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "NextUnread", targets: ["NextUnread"]),
        .executable(name: "next-unread-demo", targets: ["next-unread-demo"]),
        .executable(name: "embedding-demo", targets: ["embedding-demo"]),
        .executable(name: "beside-a-neighbour", targets: ["beside-a-neighbour"]),
    ],
    dependencies: [
        .package(name: "TimelineEngine", path: "../.."),
        // A package whose targets have the short names many packages use (JSONSchema, TestSupport…).
        .package(name: "Neighbour", path: "../Neighbour"),
    ],
    targets: [
        // The strategy: what an app would put in its own module.
        .target(
            name: "NextUnread", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // What the app does with it: one registry, one schema, one loader, one pipeline.
        .executableTarget(
            name: "next-unread-demo",
            dependencies: ["NextUnread", .product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The README's "Embedding it in an app", word for word (main.swift), with what it takes
        // from the app around it (App.swift).
        .executableTarget(
            name: "embedding-demo", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // An app with TimelineEngine beside that package: it builds because every target of
        // TimelineEngine is named `TimelineEngine…`.
        .executableTarget(
            name: "beside-a-neighbour",
            dependencies: [
                .product(name: "TimelineEngine", package: "TimelineEngine"), .product(name: "Neighbour", package: "Neighbour"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
