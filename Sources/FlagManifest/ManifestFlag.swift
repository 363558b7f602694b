import FeatureFlags

/// One flag of a manifest: its registry definition plus what only the flagd format has.
public struct ManifestFlag: Sendable {
    /// Everything the registry knows about the flag.
    public var definition: FlagDefinition
    /// flagd's `state`: `DISABLED` flags are treated by flagd providers as if they did not exist.
    public var isEnabled: Bool
    /// The line the flag's key is on, when read from a file.
    public var line: Int?
    /// Metadata keys starting with `x-`, kept as written (for teams' own annotations).
    public var customMetadata: [String: FlagValue]

    public init(
        definition: FlagDefinition, isEnabled: Bool = true, line: Int? = nil, customMetadata: [String: FlagValue] = [:]
    ) {
        self.definition = definition
        self.isEnabled = isEnabled
        self.line = line
        self.customMetadata = customMetadata
    }

    /// The flag's key.
    public var key: String { definition.key }
}

extension FlagDefinition {
    /// The `followsPhasePolicy` a manifest assumes when it does not say: Boolean flags follow
    /// the phase policy, typed values do not (as ``FeatureFlagKey`` and ``TypedFlag`` declare them).
    static func defaultFollowsPhasePolicy(for type: FlagValueType) -> Bool { type == .boolean }

    /// The `checking` a manifest assumes when it does not say.
    static func defaultChecking(for type: FlagValueType) -> CheckingMode {
        type == .boolean ? .buildAndUser : .userOnly
    }
}
