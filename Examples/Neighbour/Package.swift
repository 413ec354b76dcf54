// swift-tools-version: 6.1
// Another package an app depends on, whose targets have the short names many packages use
// (`JSONSchema`, `TestSupport`, `ValueTree`, `HTTP`). SwiftPM needs target names unique across a
// package graph: `Examples/PackageStrategy`'s `beside-a-neighbour` depends on this package and on
// TimelineEngine, and builds only because every TimelineEngine target is named `TimelineEngine…`.
import PackageDescription

let package = Package(
    name: "Neighbour",
    products: [
        .library(name: "Neighbour", targets: ["JSONSchema", "TestSupport", "ValueTree", "HTTP"])
    ],
    targets: [
        .target(name: "JSONSchema", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "TestSupport", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "ValueTree", swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "HTTP", swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
