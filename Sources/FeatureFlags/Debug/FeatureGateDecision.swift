/// What a SwiftUI feature gate (`featureGated(_:)`, `withFeature(_:content:)` in FeatureFlagsUI)
/// does with the flags it found in the environment. Platform-neutral, so it is tested everywhere.
public enum FeatureGateDecision: Sendable, Hashable {
    /// The flag is on.
    case on
    /// The flag is off, or the flags are missing in a build that does not report it.
    case off
    /// The flags are missing from the environment, or are for another flag type: the gate
    /// treats the flag as off, and in debug builds says so with this message.
    case misconfigured(String)

    /// Decides a gate on `flag` given what the environment holds.
    ///
    /// - Parameters:
    ///   - environmentFlags: the object `.featureFlags(_:)` put in the environment, if any.
    ///   - reportsMisconfiguration: whether to report missing flags (debug builds) rather than
    ///     quietly treat the flag as off.
    public static func decide<Key: FeatureFlagKey>(
        _ flag: Key, environmentFlags: (any AnyObject & Sendable)?, reportsMisconfiguration: Bool
    ) -> FeatureGateDecision {
        if let flags = environmentFlags as? FeatureFlagManager<Key> {
            return flags.snapshot.isEnabled(flag) ? .on : .off
        }
        guard reportsMisconfiguration else { return .off }
        let gate = "featureGated(\(Key.self).\(flag))"
        guard let environmentFlags else {
            return .misconfigured(
                "\(gate) found no feature flags in the environment, so the view stays hidden. Add .featureFlags(flags) to an ancestor view, or pass the flags: .featureGated(.\(flag), in: flags)."
            )
        }
        return .misconfigured(
            "\(gate) found \(type(of: environmentFlags)) in the environment, not FeatureFlagManager<\(Key.self)>, so the view stays hidden. Give .featureFlags(_:) the manager of \(Key.self)."
        )
    }
}
