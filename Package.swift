// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-feature-flags",
    platforms: [
        .iOS(.v18), .macOS(.v15), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
    ],
    products: [
        .library(name: "FeatureFlags", targets: ["FeatureFlags"]),
        .library(name: "FeatureFlagsTesting", targets: ["FeatureFlagsTesting"]),
        .library(name: "FlagManifest", targets: ["FlagManifest"]),
        .library(name: "FeatureFlagsUI", targets: ["FeatureFlagsUI"]),
        .library(name: "FeatureFlagsRemote", targets: ["FeatureFlagsRemote"]),
        .library(name: "FlagEvaluation", targets: ["FlagEvaluation"]),
        .executable(name: "flags", targets: ["flags"]),
        .plugin(name: "FlagsGeneratePlugin", targets: ["FlagsGeneratePlugin"]),
        .executable(name: "feature-flags-demo", targets: ["FeatureFlagsDemo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // Core: registry, layers, resolution, snapshots, overrides, observation, debug model.
        .target(
            name: "FeatureFlags",
            dependencies: [.product(name: "Logging", package: "swift-log")]
        ),
        // Helpers for users' own tests.
        .target(name: "FeatureFlagsTesting", dependencies: ["FeatureFlags", "FlagManifest"]),
        // The manifest: a flagd flag-definition file carrying the registry in each flag's metadata.
        .target(name: "FlagManifest", dependencies: ["FeatureFlags"]),
        // Lifecycle tooling behind the `flags` command: code generation, lint, references, removal.
        .target(
            name: "FlagTooling",
            dependencies: [
                "FeatureFlags", "FlagManifest",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftOperators", package: "swift-syntax"),
            ]
        ),
        // SwiftUI shell over the debug model; compiles to nothing where SwiftUI is missing.
        .target(name: "FeatureFlagsUI", dependencies: ["FeatureFlags"]),
        // Environments, app_config / OFREP loading, disk cache, refresh policy.
        .target(
            name: "FeatureFlagsRemote",
            dependencies: ["FeatureFlags", .product(name: "Logging", package: "swift-log")]
        ),
        // flagd definitions, JSON Logic and flagd operators. Pure; does not import FeatureFlags.
        .target(name: "FlagEvaluation"),
        // The command-line tool.
        .executableTarget(
            name: "flags",
            dependencies: [
                "FeatureFlags", "FlagEvaluation", "FlagManifest", "FlagTooling",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs `flags generate` on build for a `flags.json` (or `<EnumName>.flags.json`) in a target.
        .plugin(name: "FlagsGeneratePlugin", capability: .buildTool(), dependencies: ["flags"]),

        // Examples.
        .executableTarget(
            name: "FeatureFlagsDemo",
            dependencies: ["FeatureFlags"],
            path: "Examples/FeatureFlagsDemo"
        ),

        // Tests.
        .testTarget(name: "FeatureFlagsTests", dependencies: ["FeatureFlags", "FeatureFlagsTesting"]),
        .testTarget(name: "FeatureFlagsRemoteTests", dependencies: ["FeatureFlagsRemote", "FeatureFlagsTesting"]),
        .testTarget(name: "FlagEvaluationTests", dependencies: ["FlagEvaluation"]),
        .testTarget(
            name: "FlagToolingTests",
            dependencies: ["FlagTooling", "FlagManifest", "FeatureFlagsTesting", "flags"],
            exclude: ["Fixtures"]
        ),
    ]
)

// Upcoming language features for every target (Swift 6 language mode is the tools-version default).
for target in package.targets where target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(contentsOf: [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ])
    target.swiftSettings = settings
}
