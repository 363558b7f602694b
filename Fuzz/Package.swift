// swift-tools-version: 6.1
import PackageDescription

import struct Foundation.URL

// libFuzzer targets for swift-feature-flags, kept out of the root package so that `swift build` /
// `swift test` there never compile the library with sanitizers.
//
// One executable holds every target (it links once); `FUZZ_TARGET` picks the target at run time.
// Build and run through `./run.sh` (see README.md), which passes `--sanitize=fuzzer --sanitize=address`
// so that coverage instrumentation reaches the library's code, not only the harness.
let package = Package(
    name: "swift-feature-flags-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
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
