// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// Performance benchmarks for swift-feature-flags, kept out of the root package so that
// `swift build` / `swift test` there never fetch or compile package-benchmark.
//
// Run: `swift package benchmark` in this folder, or `./run.sh` for medians beside baselines.
// Add an area: create Benchmarks/<Name>/<Name>.swift and add "<Name>" to `benchmarkTargets`.
let package = Package(
    name: "swift-feature-flags-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        // Only the malloc interposer trait: the default "RuntimeInterposer" trait pulls in
        // swift-runtime-interposer, which we don't need (ARC counters) and don't mirror.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ]
)

/// SwiftPM names a path dependency after its folder (`..` is wherever the repository was cloned),
/// so the root package's identity is computed rather than written down.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

/// One executable target per area; package-benchmark finds them under Benchmarks/<Name>/.
let benchmarkTargets: [(name: String, dependencies: [Target.Dependency])] = [
    (
        "CoreBenchmarks",
        [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "ExampleFlags", package: rootPackage),
        ]
    ),
    ("EvaluationBenchmarks", [.product(name: "FlagEvaluation", package: rootPackage)]),
    (
        "SharingBenchmarks",
        [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FeatureFlagsSharing", package: rootPackage),
            .product(name: "ExampleFlags", package: rootPackage),
        ]
    ),
    (
        "LaunchBenchmarks",
        [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FeatureFlagsRemote", package: rootPackage),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
    (
        "RemoteBenchmarks",
        [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FeatureFlagsRemote", package: rootPackage),
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "Logging", package: "swift-log"),
        ]
    ),
]

for (name, dependencies) in benchmarkTargets {
    package.targets.append(
        .executableTarget(
            name: name,
            dependencies: [.product(name: "Benchmark", package: "benchmark")] + dependencies,
            path: "Benchmarks/\(name)",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    )
}
