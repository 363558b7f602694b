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
        .library(name: "FeatureFlagsEvents", targets: ["FeatureFlagsEvents"]),
        .library(name: "FlagEvaluation", targets: ["FlagEvaluation"]),
        .library(name: "FeatureFlagsTargeting", targets: ["FeatureFlagsTargeting"]),
        .library(name: "FeatureFlagsSharing", targets: ["FeatureFlagsSharing"]),
        // Experiment statistics from sufficient statistics: pure, no dependencies (the server and
        // `flags stats` use it).
        .library(name: "FlagStatistics", targets: ["FlagStatistics"]),
        // The flag server's wire types and grammars (rollout steps, durations), shared by the
        // server, its console and `flags`: pure, no I/O.
        .library(name: "FlagServerAPI", targets: ["FlagServerAPI"]),
        // A client of the flag server's admin API (what `flags push`, `pull`, `rollout` use),
        // without swift-syntax.
        .library(name: "FlagServerClient", targets: ["FlagServerClient"]),
        .executable(name: "flags", targets: ["flags"]),
        .plugin(name: "FlagsGeneratePlugin", targets: ["FlagsGeneratePlugin"]),
        // The example registry of the demo and the docs (32 flags in phases 0-8, typed values),
        // a product so that the benchmarks package measures the same registry.
        .library(name: "ExampleFlags", targets: ["ExampleFlags"]),
        .executable(name: "feature-flags-demo", targets: ["FeatureFlagsDemo"]),
        .executable(name: "phase-gating", targets: ["PhaseGating"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        // A strict JSON parser and string writer, shared by the core and the evaluation engine
        // (which do not depend on each other). Internal to the package: no product.
        .target(name: "JSONSyntax"),
        // Core: registry, layers, resolution, snapshots, overrides, observation, debug model.
        .target(
            name: "FeatureFlags",
            dependencies: ["JSONSyntax", .product(name: "Logging", package: "swift-log")],
            // Apple's privacy manifest (UserDefaults); PrivacyManifestTests checks it against the sources.
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // Helpers for users' own tests.
        .target(
            name: "FeatureFlagsTesting",
            dependencies: ["FeatureFlags", "FlagManifest", .product(name: "Logging", package: "swift-log")]
        ),
        // The manifest: a flagd flag-definition file carrying the registry in each flag's metadata.
        .target(name: "FlagManifest", dependencies: ["FeatureFlags"]),
        // Lifecycle tooling behind the `flags` command: code generation, lint, references, removal.
        .target(
            name: "FlagTooling",
            dependencies: [
                "FeatureFlags", "FlagManifest", "FlagServerAPI", "FlagServerClient",
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
            dependencies: ["FeatureFlags", .product(name: "Logging", package: "swift-log")],
            // Apple's privacy manifest (file attributes; the targeting key OFREP evaluations send).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // Delivery of exposures, evaluation summaries and tracked events to the flag server, and
        // session health ($session, $crash, $error). Uses FeatureFlagsRemote's HTTP transport; an
        // app that only loads remote values does not link it.
        .target(
            name: "FeatureFlagsEvents",
            dependencies: ["FeatureFlags", "FeatureFlagsRemote", .product(name: "Logging", package: "swift-log")],
            // Apple's privacy manifest (the data events send).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // The resolved flags an app publishes to its App Group, read by its extensions and widgets.
        .target(
            name: "FeatureFlagsSharing",
            dependencies: ["FeatureFlags", .product(name: "Logging", package: "swift-log")],
            // Apple's privacy manifest (file attributes in the App Group container).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // flagd definitions, JSON Logic and flagd operators. Pure; does not import FeatureFlags.
        .target(name: "FlagEvaluation", dependencies: ["JSONSyntax"]),
        // Feeds the core's remote layer from flag definitions evaluated for a context.
        .target(name: "FeatureFlagsTargeting", dependencies: ["FeatureFlags", "FlagEvaluation"]),

        .target(name: "FlagStatistics"),
        // The flag server's wire types and grammars, used by the server (its own package) and the
        // tooling. Pure: no Foundation, no I/O.
        .target(name: "FlagServerAPI"),
        // The admin API's client: requests, transports (URLSession), answers, their errors.
        .target(name: "FlagServerClient", dependencies: ["FeatureFlags"]),
        // The command-line tool.
        .executableTarget(
            name: "flags",
            dependencies: [
                "FeatureFlags", "FlagEvaluation", "FlagManifest", "FlagServerClient", "FlagTooling", "FlagStatistics",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Runs `flags generate` on build for a `flags.json` (or `<EnumName>.flags.json`) in a target.
        .plugin(name: "FlagsGeneratePlugin", capability: .buildTool(), dependencies: ["flags"]),

        // Examples.
        .target(name: "ExampleFlags", dependencies: ["FeatureFlags", "FeatureFlagsRemote"], path: "Examples/ExampleFlags"),
        .executableTarget(
            name: "FeatureFlagsDemo",
            dependencies: ["FeatureFlags", "FeatureFlagsRemote", "ExampleFlags"],
            path: "Examples/FeatureFlagsDemo"
        ),
        // A widget extension reading the flags its app shares (WidgetKit platforms; empty elsewhere).
        .target(
            name: "ExampleWidget",
            dependencies: ["FeatureFlags", "FeatureFlagsSharing", "ExampleFlags"],
            path: "Examples/ExampleWidget"
        ),
        // The README's snippets, extracted by scripts/readme_snippets.py so they keep compiling.
        .executableTarget(
            name: "ReadmeSnippets",
            dependencies: [
                "FeatureFlags", "FeatureFlagsRemote", "FeatureFlagsEvents", "FeatureFlagsTesting", "FeatureFlagsTargeting",
                "FlagEvaluation", "FeatureFlagsSharing",
            ],
            path: "Examples/ReadmeSnippets"
        ),
        // Compile-time gating: phase 2 code is compiled only in debug builds.
        .executableTarget(
            name: "PhaseGating",
            dependencies: ["FeatureFlags", "ExampleFlags"],
            path: "Examples/PhaseGating",
            swiftSettings: [.define("PHASE_2_FEATURES", .when(configuration: .debug))]
        ),

        // Tests.
        .testTarget(
            name: "FeatureFlagsTests",
            dependencies: [
                "FeatureFlags", "FeatureFlagsTesting", "ExampleFlags",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "FeatureFlagsTargetingTests",
            dependencies: ["FeatureFlagsTargeting", "FeatureFlagsTesting", "ExampleFlags"]
        ),
        // A stand-in app the event queue's crash tests run and kill with SIGKILL. Not a product.
        .executableTarget(
            name: "flag-event-queue-crash-helper",
            dependencies: [
                "FeatureFlags", "FeatureFlagsEvents", "FeatureFlagsRemote", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FlagEventQueueCrashHelper"
        ),
        // What the remote and events tests share: a manual clock, a real HTTP server on loopback (so
        // tests control the raw bytes on the wire) and a gate. Not a product.
        .target(
            name: "RemoteTestSupport",
            dependencies: [
                "FeatureFlagsRemote",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/RemoteTestSupport"
        ),
        .testTarget(
            name: "FeatureFlagsRemoteTests",
            dependencies: ["FeatureFlagsRemote", "FeatureFlagsTesting", "RemoteTestSupport"]
        ),
        .testTarget(
            name: "FeatureFlagsEventsTests",
            dependencies: [
                "FeatureFlagsEvents", "FeatureFlagsRemote", "FeatureFlagsTesting", "RemoteTestSupport",
                // Built before the tests, which run it.
                "flag-event-queue-crash-helper",
            ]
        ),
        .testTarget(
            name: "FeatureFlagsSharingTests",
            dependencies: [
                "FeatureFlagsSharing", "FeatureFlagsTesting", "ExampleFlags",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "FlagStatisticsTests", dependencies: ["FlagStatistics"]),
        .testTarget(name: "FlagServerAPITests", dependencies: ["FlagServerAPI"]),
        .testTarget(name: "FlagEvaluationTests", dependencies: ["FlagEvaluation", "JSONSyntax"], exclude: ["ExpectedFailures"]),
        .testTarget(
            name: "FlagToolingTests",
            // The demo for its table layout (TextTable), as a testable executable.
            dependencies: [
                "FlagTooling", "FlagServerClient", "FlagServerAPI", "FlagManifest", "FeatureFlagsTesting", "ExampleFlags", "flags",
                "FeatureFlagsDemo",
            ],
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
    // CI (`.ci/run`) sets FEATURE_FLAGS_WARNINGS_AS_ERRORS=1: every warning in the project's own
    // targets fails the build. Only these targets get the flag, never the dependencies.
    if Context.environment["FEATURE_FLAGS_WARNINGS_AS_ERRORS"] == "1" {
        settings.append(.unsafeFlags(["-warnings-as-errors"]))
    }
    target.swiftSettings = settings
}

// CI's thread-sanitizer step (`.ci/run tsan`) sets FEATURE_FLAGS_TSAN_SUBSET=1: the package then
// declares only the targets its concurrency tests need (the core, the manifest, the testing
// helpers, the example registry and FeatureFlagsTests), so the instrumented build skips
// swift-syntax, the tooling and the server-facing targets.
if Context.environment["FEATURE_FLAGS_TSAN_SUBSET"] == "1" {
    let kept: Set<String> = [
        "JSONSyntax", "FeatureFlags", "FeatureFlagsRemote", "FlagManifest", "FeatureFlagsTesting", "ExampleFlags",
        "FeatureFlagsTests",
    ]
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return targets.isEmpty || !targets.allSatisfy(kept.contains)
    }
}
