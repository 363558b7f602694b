// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// libFuzzer targets for swift-feature-flags, kept out of the root package so that `swift build` /
// `swift test` there never compile the library with sanitizers.
//
// One executable holds every library target (it links once); `FUZZ_TARGET` picks the target at run
// time. The flag server's targets live in a second executable, `FlagServerFuzzer`, so the first one
// never builds Hummingbird, NIO or SQLite; `run.sh` builds it only when a server target runs.
// Build and run through `./run.sh` (see README.md), which passes `--sanitize=fuzzer` and
// `-sanitize=fuzzer,address` so that coverage instrumentation reaches the library's code, not only
// the harness.
let package = Package(
    name: "swift-feature-flags-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(path: "../Server"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ]
)

/// SwiftPM names a path dependency after its folder (`..` is wherever the repository was cloned),
/// so the root package's identity is computed rather than written down.
let rootPackage = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

package.targets.append(
    .executableTarget(
        name: "FeatureFlagsFuzzer",
        dependencies: [
            .product(name: "FeatureFlags", package: rootPackage),
            .product(name: "FeatureFlagsRemote", package: rootPackage),
            .product(name: "FlagEvaluation", package: rootPackage),
            .product(name: "FlagManifest", package: rootPackage),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Sources/FeatureFlagsFuzzer",
        swiftSettings: [
            // libFuzzer supplies `main`; the harness only exports `LLVMFuzzerTestOneInput`.
            .unsafeFlags(["-parse-as-library"])
        ]
    )
)

package.targets.append(
    .executableTarget(
        name: "FlagServerFuzzer",
        dependencies: [
            .product(name: "FlagServer", package: "server"),
            .product(name: "FlagEvaluation", package: rootPackage),
        ],
        path: "Sources/FlagServerFuzzer",
        swiftSettings: [.unsafeFlags(["-parse-as-library"])]
    )
)
