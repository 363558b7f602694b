// swift-tools-version: 6.2
import PackageDescription

import struct Foundation.URL

// Flag evaluations as OpenTelemetry `feature_flag.evaluation` span events, through
// swift-distributed-tracing. A package of its own so that apps adding the library never resolve
// or build tracing; the exporter (swift-otel or another) is the app's choice.
//
// Test: `swift test` in this folder.
let package = Package(
    name: "swift-feature-flags-opentelemetry",
    platforms: [
        .iOS(.v18), .macOS(.v15), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2),
    ],
    products: [
        .library(name: "FeatureFlagsOpenTelemetry", targets: ["FeatureFlagsOpenTelemetry"])
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
    ]
)

/// SwiftPM names a path dependency after its folder (`../..` is wherever the repository was
/// cloned), so the root package's identity is computed rather than written down.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
    .lowercased()

package.targets = [
    .target(
        name: "FeatureFlagsOpenTelemetry",
        dependencies: [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FlagEvaluation", package: rootPackage),
            // `FlagValue(JSONValue)`, for results of the evaluator.
            .product(name: "FeatureFlagsTargeting", package: rootPackage),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]
    ),
    .testTarget(
        name: "FeatureFlagsOpenTelemetryTests",
        dependencies: [
            "FeatureFlagsOpenTelemetry",
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
        ]
    ),
]

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
    // FEATURE_FLAGS_WARNINGS_AS_ERRORS=1 (set by `.ci/run`): warnings in this package's own targets
    // (and, through the root manifest, the library's) fail the build; dependencies are untouched.
    if Context.environment["FEATURE_FLAGS_WARNINGS_AS_ERRORS"] == "1" {
        target.swiftSettings! += [.unsafeFlags(["-warnings-as-errors"])]
    }
}
