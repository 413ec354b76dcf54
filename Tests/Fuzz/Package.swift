// swift-tools-version: 6.1
// libFuzzer targets for the engine's readers, kept out of the main package: they build only with
// the fuzzer sanitizer (libFuzzer brings its own main). Run them with Tests/Fuzz/run.sh.
import PackageDescription

let settings: [SwiftSetting] = [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "TimelineEngineFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "TimelineEngine", path: "../..")],
    targets: [
        .executableTarget(
            name: "fuzz-plist", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-json", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-spec", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-plugin-schema", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-config", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-merge", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-wire", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
        .executableTarget(
            name: "fuzz-headers", dependencies: [.product(name: "TimelineEngine", package: "TimelineEngine")],
            swiftSettings: settings),
    ]
)
