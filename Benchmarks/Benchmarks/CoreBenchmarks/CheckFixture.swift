import ExampleFlags
import FeatureFlags

/// What the check benchmarks read: configured flags, and the same values as a plain `[Bool]`
/// and a `[String: Bool]` for the in-run baselines.
///
/// Every loop reads its input from a pre-shuffled array (`keys`, `indices`, `names`, all the
/// same order), so the optimizer cannot hoist the check out of the loop, and every variant pays
/// the same cost for fetching its input.
struct CheckFixture: @unchecked Sendable {
    // @unchecked Sendable: every property is an immutable array or a Sendable class, built once
    // before any benchmark runs and only read afterwards.
    let flags: FeatureFlagManager<AppFlag>
    /// The same flags recording events (issue 23): a recorder configured, a third of the flags
    /// served by the server with a variant (their first read records an exposure; every read
    /// counts).
    let recordingFlags: FeatureFlagManager<AppFlag>
    /// The resolved values in case order, for the `[Bool]` baseline.
    let bools: [Bool]
    /// The resolved values by key, for the dictionary baseline.
    let byName: [String: Bool]
    let keys: [AppFlag]
    let indices: [Int]
    let names: [String]
    /// `names` for each of the two threads of the `Threads.*` benchmarks, each with string
    /// objects of its own: a server's threads read keys from their own requests. Shared string
    /// objects would make both threads write one reference count per call (the caller retains a
    /// key it passes to a function it cannot see into), which is what the two-thread string-key
    /// figure measured before (issue 14).
    let namesPerThread: [[String]]
    /// `i & mask` indexes the input arrays.
    let mask: Int

    init(inputCount: Int = 4_096) {
        precondition(inputCount > 0 && inputCount & (inputCount - 1) == 0, "inputCount must be a power of two")
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .debug)
        // Longer than the 15 UTF-8 bytes Swift stores inline, so that reading the string value
        // measures a heap string, as most real strings are.
        flags.setOverride(AppConfig.onboardingVariant, to: "checklist-with-progress-bar")
        let cases = AppFlag.allCases
        self.flags = flags
        let recorder = FlagEventRecorder(.init(source: FlagEventSource(appVersion: "1.0", buildConfiguration: .debug)))
        let recordingFlags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .debug, eventRecorder: recorder))
        recordingFlags.setOverride(AppConfig.onboardingVariant, to: "checklist-with-progress-bar")
        var served: [String: RemoteFlagValue] = [:]
        for (position, flag) in cases.enumerated() where position % 3 == 0 {
            served[flag.rawValue] = RemoteFlagValue(.bool(flags.isEnabled(flag)), variant: "v\(position)", reason: .split)
        }
        recordingFlags.engine.receiveRemoteValues(RemoteFlagValues(served, source: "ofrep", unit: "user-1"))
        for flag in cases { _ = recordingFlags.isEnabled(flag) }  // the exposures, once
        self.recordingFlags = recordingFlags
        bools = cases.map { flags.isEnabled($0) }
        byName = Dictionary(uniqueKeysWithValues: cases.map { ($0.rawValue, flags.isEnabled($0)) })

        // A fixed linear congruential sequence: the same inputs in every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var keys: [AppFlag] = []
        for _ in 0..<inputCount {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            keys.append(cases[Int(state >> 33) % cases.count])
        }
        self.keys = keys
        indices = keys.map { cases.firstIndex(of: $0)! }
        names = keys.map(\.rawValue)
        namesPerThread = (0..<2).map { _ in
            // New storage for every key longer than the 15 bytes Swift stores inline.
            let copies = Dictionary(uniqueKeysWithValues: cases.map { ($0.rawValue, String(decoding: Array($0.rawValue.utf8), as: UTF8.self)) })
            return keys.map { copies[$0.rawValue]! }
        }
        mask = inputCount - 1
    }
}
