public import FeatureFlags
import Logging

extension FeatureFlagManager {
    /// Flags for a test: configured for `configuration`, in-memory stores, no remote provider,
    /// and the given overrides applied.
    ///
    /// ```swift
    /// let flags = FeatureFlagManager<AppFlag>.testing(.release, overrides: [.chatViewRedesign: true])
    /// ```
    ///
    /// Overrides apply in every configuration here, including release, so a test can pin any
    /// flag.
    public static func testing(
        _ configuration: BuildConfiguration = .debug,
        overrides: [Key: Bool] = [:],
        values: [String: FlagValue] = [:],
        remote: RemoteFlagValues? = nil,
        logger: Logger = Logger(label: "feature-flags.testing")
    ) -> FeatureFlagManager<Key> {
        var stored = values
        for (flag, on) in overrides { stored[flag.rawValue] = .bool(on) }
        let provider = remote.map { TestRemoteProvider(cached: $0) }
        return FeatureFlagManager(
            FlagSetup(
                buildConfiguration: configuration,
                overrideStore: InMemoryFlagStore(stored),
                remoteProvider: provider,
                overridableConfigurations: Set(BuildConfiguration.allCases),
                logger: logger))
    }
}
