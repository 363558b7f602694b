import Benchmark
import ExampleFlags
import FeatureFlags
import FeatureFlagsSharing
import Foundation

// What a widget or an app extension pays to see the app's flags: reading the file the app
// published to its App Group (here a temporary directory), no network.
//
//   Shared.Read            an existing reader reads and checks the file: `AppFlag`, the example
//                          registry (32 flags, all overridden, and 12 typed values, the runtime
//                          configuration's 7 remote with a variant)
//   Shared.ReaderAndRead   the same with the reader created first (its registry built), as a
//                          widget's timeline provider that keeps nothing between calls does
//   Baseline.Shared.JSONSerialization  reading the same file with `Data(contentsOf:)` and
//                          parsing it with `JSONSerialization`, nothing more
//
// Goal (issue 21): under a millisecond.

/// The published file of an app whose every Boolean flag is overridden and whose runtime
/// configuration values come from a remote provider with variants.
struct SharingFixture: Sendable {
    let directory: URL

    init() {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("feature-flags-sharing-\(ProcessInfo.processInfo.processIdentifier)")
    }

    var file: SharedFlagsFile { SharedFlagsFile(directory: directory) }

    func publish() throws {
        var remote: [String: RemoteFlagValue] = [:]
        for flag in AppRuntimeConfiguration.flags.map(\.definition) {
            remote[flag.key] = RemoteFlagValue(flag.defaultValue, variant: "control", reason: .split)
        }
        let flags = FeatureFlagManager<AppFlag>(
            FlagSetup(
                buildConfiguration: .debug,
                overrideStore: InMemoryFlagStore(
                    Dictionary(uniqueKeysWithValues: AppFlag.allCases.enumerated().map { ($1.rawValue, .bool($0 % 2 == 0)) })),
                remoteProvider: StaticRemote(values: RemoteFlagValues(remote, source: "bench"))))
        try SharedFlagPublisher(flags: flags, file: file).publish()
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Cached values at configuration, nothing to load.
struct StaticRemote: RemoteFlagProvider {
    let values: RemoteFlagValues
    func cachedFlags() -> RemoteFlagValues? { values }
    func loadFlags() async throws -> RemoteFlagValues { values }
    func refresh() async throws -> RemoteFlagValues { values }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(3),
        maxIterations: 5_000
    )
    let fixture = SharingFixture()
    let reader = SharedFlagReader<AppFlag>(file: fixture.file)

    Benchmark(
        "Shared.Read", configuration: configuration,
        closure: { _ in
            let flags = reader.read()
            precondition(flags.status == .published && flags.entry(.liquidGlassDesign)?.layer == .override)
            blackHole(flags)
        },
        setup: { try fixture.publish() },
        teardown: { fixture.remove() })

    Benchmark(
        "Shared.ReaderAndRead", configuration: configuration,
        closure: { _ in
            let flags = SharedFlagReader<AppFlag>(file: fixture.file).read()
            precondition(flags.status == .published)
            blackHole(flags)
        },
        setup: { try fixture.publish() },
        teardown: { fixture.remove() })

    Benchmark(
        "Baseline.Shared.JSONSerialization", configuration: configuration,
        closure: { _ in
            let data = try Data(contentsOf: fixture.file.url)
            blackHole(try JSONSerialization.jsonObject(with: data))
        },
        setup: { try fixture.publish() },
        teardown: { fixture.remove() })
}
