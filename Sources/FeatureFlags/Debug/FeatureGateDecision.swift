/// What a SwiftUI feature gate (`featureGated(_:)`, `withFeature(_:content:)` in FeatureFlagsUI)
/// does with the managers it found in the environment. Platform-neutral, so it is tested
/// everywhere.
public enum FeatureGateDecision: Sendable, Hashable {
    /// The flag is on.
    case on
    /// The flag is off, or its manager is missing in a release build, which does not report it.
    case off
    /// The environment has no manager of the flag's type: the gate treats the flag as off and,
    /// outside release builds, says so with this message.
    case misconfigured(String)

    /// Decides a gate on `flag` given the managers in the environment.
    ///
    /// Whether a missing manager is reported is decided at run time from the build
    /// configuration the app gave its flags (``reportsMisconfiguration(in:lastConfigured:)``),
    /// not from how the package was compiled: Xcode compiles packages with `DEBUG` only in
    /// configurations named Debug, so an app's Alpha, Beta or Internal builds would otherwise
    /// hide a misconfigured gate silently.
    public static func decide<Key: FeatureFlagKey>(_ flag: Key, in managers: FeatureFlagManagers) -> FeatureGateDecision {
        decide(flag, in: managers, lastConfigured: FlagEngine.lastConfiguredBuildConfiguration)
    }

    /// ``decide(_:in:)`` with the process's last configured build configuration given.
    public static func decide<Key: FeatureFlagKey>(
        _ flag: Key, in managers: FeatureFlagManagers, lastConfigured: BuildConfiguration?
    ) -> FeatureGateDecision {
        if let flags = managers.manager(for: Key.self) {
            return flags.snapshot.isEnabled(flag) ? .on : .off
        }
        guard reportsMisconfiguration(in: managers, lastConfigured: lastConfigured) else { return .off }
        let gate = "featureGated(\(Key.self).\(flag))"
        guard !managers.isEmpty else {
            return .misconfigured(
                "\(gate) found no feature flags in the environment, so the view stays hidden. Add .featureFlags(flags) to an ancestor view, or pass the flags: .featureGated(.\(flag), in: flags)."
            )
        }
        let found = managers.flagTypeNames.map { "FeatureFlagManager<\($0)>" }.joined(separator: ", ")
        return .misconfigured(
            "\(gate) found \(found) in the environment, but no FeatureFlagManager<\(Key.self)>, so the view stays hidden. Add .featureFlags(_:) with the manager of \(Key.self) to an ancestor view."
        )
    }

    /// Whether a gate reports a missing manager: unless the app's flags run as
    /// ``BuildConfiguration/release``. The configuration is that of the managers in the
    /// environment (any one not in release reports), else `lastConfigured` (the process's last
    /// configured flags); with neither, the gate reports, as no flags were configured at all.
    public static func reportsMisconfiguration(in managers: FeatureFlagManagers, lastConfigured: BuildConfiguration?)
        -> Bool
    {
        let configurations = managers.buildConfigurations
        if !configurations.isEmpty { return configurations.contains { $0 != .release } }
        guard let lastConfigured else { return true }
        return lastConfigured != .release
    }
}
