import FeatureFlags
import FeatureFlagsRemote
import Foundation

/// `app_config` and OFREP payloads, decoded against ``FuzzFlag/registry`` and applied to a manager.
///
/// Every input is decoded in both formats.
///
/// Invariants:
/// - kept values name flags of the registry and have their flag's type (already normalised);
///   ignored values are sorted by key; deferred keys are known, sorted and not also kept;
/// - a TTL is a finite, non-negative number (and only `app_config` has one);
/// - decoding is deterministic;
/// - applied to a manager, the snapshot keeps every dependency and conflict, a typed value
///   that nothing overrides is the remote value, and `snapshot(applying:)` agrees with
///   receiving the values.
enum RemotePayloadTarget {
    static func run(_ data: Data) {
        for format in [RemotePayloadFormat.appConfig, .ofrep] {
            let registry = FuzzFlag.registry
            guard let decoded = try? RemotePayloadDecoder.decode(data, format: format, registry: registry) else {
                continue
            }
            let again = try? RemotePayloadDecoder.decode(data, format: format, registry: registry)
            Invariant.require(decoded == again, "decoding the same \(format) payload twice gave different results")
            check(decoded, format: format, registry: registry)
            apply(decoded, format: format, configuration: BuildConfiguration.allCases[data.count % 4])
        }
    }

    static func check(_ decoded: DecodedRemotePayload, format: RemotePayloadFormat, registry: FlagRegistry) {
        for (key, remote) in decoded.values {
            guard let definition = registry.definition(forKey: key) else {
                Invariant.fail("the \(format) decoder kept a value for '\(key)', which is not in the registry")
            }
            Invariant.require(
                remote.value.conforms(to: definition.type) && remote.value.normalized(to: definition.type) == remote.value,
                "the \(format) decoder kept a value of the wrong type (or not normalised) for the \(definition.type) flag '\(key)'")
        }
        let ignoredKeys = decoded.ignored.map(\.key)
        Invariant.require(ignoredKeys == ignoredKeys.sorted(), "the \(format) decoder's ignored values are not sorted by key")
        Invariant.require(
            decoded.deferredToDefault == decoded.deferredToDefault.sorted(),
            "the \(format) decoder's deferred keys are not sorted")
        for key in decoded.deferredToDefault {
            Invariant.require(registry.index(ofKey: key) != nil, "the \(format) decoder deferred '\(key)', which is not in the registry")
        }
        if let ttl = decoded.ttl {
            Invariant.require(format == .appConfig, "an OFREP payload gave a TTL")
            Invariant.require(ttl.isFinite && ttl >= 0, "the \(format) decoder accepted the TTL \(ttl)")
        }
        // Findings/remote-number-out-of-range.json: out-of-range numbers are refused.
        for (key, remote) in decoded.values {
            Invariant.require(remote.value.isFinite, "the \(format) decoder kept a non-finite number for '\(key)'")
        }
    }

    static func apply(_ decoded: DecodedRemotePayload, format: RemotePayloadFormat, configuration: BuildConfiguration) {
        let manager = FeatureFlagManager<FuzzFlag>(FlagSetup(buildConfiguration: configuration, logger: FuzzFlag.logger))
        let remote = RemoteFlagValues(decoded.values, source: "fuzz")
        let applying = manager.snapshot(applying: remote)
        manager.engine.receiveRemoteValues(remote)
        let snapshot = manager.snapshot
        snapshot.checkRelations(registry: manager.engine.registry, after: "applying a \(format) payload")
        Invariant.require(
            applying == snapshot, "snapshot(applying:) and receiving the same \(format) values gave different snapshots")
        let values = snapshot.values
        for definition in manager.engine.registry.definitions where definition.type != .boolean {
            // A value the definition refuses (an object that does not decode to the Swift type,
            // a number out of range) is ignored and reported; the layer below wins.
            guard let remoteValue = decoded.values[definition.key]?.value,
                case .success = definition.accepting(remoteValue)
            else { continue }
            Invariant.require(
                values[definition.key].map(remoteValue.isSameJSON(as:)) ?? false,
                "the remote value of the \(definition.type) flag '\(definition.key)' did not win over the build defaults")
        }
    }
}
