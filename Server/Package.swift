// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// The flag server: OFREP, app_config and flagd delivery plus a JSON admin API over SQLite.
// A package of its own so that apps adding the library never resolve or build server dependencies.
//
// Run: `swift run flag-server serve` in this folder. Test: `swift test`.
let package = Package(
    name: "swift-feature-flags-server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "flag-server", targets: ["flag-server"]),
        .library(name: "FlagServer", targets: ["FlagServer"]),
    ],
    // Exact versions, so that a server built from a commit builds with the dependencies it was
    // tested with. The server's Package.resolved stays out of the repository (see UPGRADING.md,
    // "Reproducible server builds"): the package mirror CI resolves from gives these versions
    // commit ids that are not GitHub's, so a committed one would pin revisions a GitHub clone
    // cannot find. Raise a version here, and in the same commit, after the server's tests pass.
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", exact: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", exact: "1.13.2"),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/apple/swift-atomics", exact: "1.3.0"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    ]
)

/// SwiftPM names a path dependency after its folder (`..` is wherever the repository was cloned),
/// so the root package's identity is computed rather than written down.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

package.targets = [
    // The layers, each importing only those above it in this list (DESIGN.md, "The flag server";
    // Server/README.md, "Design"). FlagServerModel: the pure types and their validation, no I/O.
    .target(
        name: "FlagServerModel",
        dependencies: [
            .product(name: "FlagEvaluation", package: rootPackage),
            // An experiment metric's kind (`MetricData.Kind`).
            .product(name: "FlagStatistics", package: rootPackage),
        ]
    ),
    .target(
        name: "FlagServer",
        dependencies: [
            "FlagServerModel",
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "FlagManifest", package: rootPackage),
            // The wire types and grammars shared with `flags` (rollout steps, durations).
            .product(name: "FlagServerAPI", package: rootPackage),
            .product(name: "FlagStatistics", package: rootPackage),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "SQLiteNIO", package: "sqlite-nio"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
            // RSA signature checks of OpenID Connect ID tokens (console single sign-on).
            .product(name: "_CryptoExtras", package: "swift-crypto"),
            // Discovery, keys and code exchange with the console's OpenID provider.
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        resources: [.copy("Resources/openapi.json"), .copy("Resources/Console")]
    ),
    .executableTarget(
        name: "flag-server",
        dependencies: [
            "FlagServer",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ]
    ),
    // The server in a benchmark-only configuration, for scripts/bench/bench_http.sh (wrk); not a product.
    .executableTarget(
        name: "flag-server-bench",
        dependencies: [
            "FlagServer",
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "FlagStatistics", package: rootPackage),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
            // The event stores' baseline: the same rows bulk-inserted into plain tables (`--events`).
            .product(name: "SQLiteNIO", package: "sqlite-nio"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]
    ),
    .testTarget(
        name: "FlagServerTests",
        dependencies: [
            "FlagServer",
            // `@testable`, for the model types' internals the tests reach (as they did in FlagServer).
            "FlagServerModel",
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "FlagServerAPI", package: rootPackage),
            // The admin API's client, whose copies of the wire types must read what the server writes.
            .product(name: "FlagServerClient", package: rootPackage),
            // The library's loader, driven against this server (ClientStreamTests).
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FeatureFlagsRemote", package: rootPackage),
            // The library's event delivery, against this server's ingestion (EventIngestionClientTests).
            .product(name: "FeatureFlagsEvents", package: rootPackage),
            .product(name: "FlagStatistics", package: rootPackage),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            // FlagEventStoreCompatibilityTests reach the SQLite event store's connection.
            .product(name: "SQLiteNIO", package: "sqlite-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        exclude: ["ExpectedFailures"]
    ),
]

for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
    // FEATURE_FLAGS_WARNINGS_AS_ERRORS=1 (set by `.ci/run`): warnings in the server's own targets
    // (and, through the root manifest, the library's) fail the build; dependencies are untouched.
    if Context.environment["FEATURE_FLAGS_WARNINGS_AS_ERRORS"] == "1" {
        target.swiftSettings! += [.unsafeFlags(["-warnings-as-errors"])]
    }
}
