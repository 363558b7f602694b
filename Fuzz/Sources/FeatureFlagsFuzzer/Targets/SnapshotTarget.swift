import FeatureFlags
import Foundation

/// A manager of ``FuzzFlag`` driven by the input's bytes: the build configuration and remote
/// apply policy, stored overrides and preferences to start from, then a sequence of steps
/// (remote values received, overrides and preferences set or cleared, pending values applied).
///
/// Invariants, after every step:
/// - no flag is on while a flag it requires is off, and no two conflicting flags are both on;
/// - every value has its flag's type;
/// - `allDetails()` reports the snapshot's values;
/// - `snapshot(applying:)` with the remote values in effect gives the snapshot itself.
enum SnapshotTarget {
    static func run(_ data: Data) {
        var reader = FuzzedDataReader(data)
        let configuration = BuildConfiguration.allCases[reader.choice(4)]
        let policy: RemoteApplyPolicy = [.immediately, .atSafePoint, .nextLaunch][reader.choice(3)]
        var stored: [String: FlagValue] = [:]
        var preferences: [String: FlagValue] = [:]
        for _ in 0..<reader.choice(4) { stored[key(&reader)] = value(&reader) }
        for _ in 0..<reader.choice(4) { preferences[key(&reader)] = value(&reader) }
        let manager = FeatureFlagManager<FuzzFlag>(
            FlagSetup(
                buildConfiguration: configuration,
                overrideStore: InMemoryFlagStore(stored),
                userPreferenceStore: InMemoryFlagStore(preferences),
                remoteApplyPolicy: policy,
                logger: FuzzFlag.logger))
        let engine = manager.engine
        check(manager, remote: nil, step: "configuration")

        var remote: [String: FlagValue] = [:]
        var inEffect: [String: FlagValue]? = policy == .immediately ? [:] : nil
        var steps = 0
        while !reader.isAtEnd && steps < 64 {
            steps += 1
            let step: String
            switch reader.choice(7) {
            case 0:
                let key = key(&reader)
                remote[key] = value(&reader)
                engine.receiveRemoteValues(RemoteFlagValues(values: remote, source: "fuzz"))
                if policy == .immediately { inEffect = remote }
                step = "receiving a remote value for '\(key)'"
            case 1:
                remote = [:]
                engine.receiveRemoteValues(RemoteFlagValues(values: remote, source: "fuzz"))
                if policy == .immediately { inEffect = remote }
                step = "receiving no remote values"
            case 2:
                let key = key(&reader)
                try? engine.setOverride(reader.bool() ? nil : value(&reader), forKey: key)
                step = "setting the override of '\(key)'"
            case 3:
                let key = key(&reader)
                try? engine.setUserPreference(reader.bool() ? nil : value(&reader), forKey: key)
                step = "setting the preference for '\(key)'"
            case 4:
                engine.removeAllOverrides()
                step = "removing all overrides"
            case 5:
                let hadPending = engine.hasPendingRemoteValues
                engine.applyPendingRemoteValues()
                if hadPending { inEffect = remote }
                step = "applying pending remote values"
            default:
                let flag = FuzzFlag.allCases[reader.choice(FuzzFlag.allCases.count)]
                let on: Bool? = reader.bool() ? nil : reader.bool()
                manager.setOverride(flag, to: on)
                step = "setting the override of '\(flag.rawValue)' through the manager"
            }
            check(manager, remote: inEffect, step: step)
        }
    }

    static func check(_ manager: FeatureFlagManager<FuzzFlag>, remote: [String: FlagValue]?, step: String) {
        let snapshot = manager.snapshot
        let registry = manager.engine.registry
        snapshot.checkRelations(registry: registry, after: step)
        let values = snapshot.values
        for details in manager.engine.allDetails() {
            Invariant.require(
                values[details.key] == details.value, "allDetails() and the snapshot disagree on '\(details.key)' (after \(step))")
        }
        if let remote {
            let applying = manager.snapshot(applying: RemoteFlagValues(values: remote, source: "fuzz"))
            Invariant.require(
                applying == snapshot, "snapshot(applying:) the remote values in effect changed the snapshot (after \(step))")
        }
    }

    static func key(_ reader: inout FuzzedDataReader) -> String {
        FuzzFlag.keys[reader.choice(FuzzFlag.keys.count)]
    }

    /// Mostly Booleans, sometimes any value (which the manager must reject or normalise).
    static func value(_ reader: inout FuzzedDataReader) -> FlagValue {
        reader.choice(4) == 0 ? reader.flagValue(depth: 1) : .bool(reader.bool())
    }
}
