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
    /// The name the Swift declaration gives the flag (the enum case or the typed value's
    /// property), when it is not the one derived from the key (``SwiftNames/identifier(forKey:)``):
    /// `iPadLayouts` for `ipad_layouts`. Metadata `swiftName`.
    public var swiftName: String?

    public init(
        definition: FlagDefinition, isEnabled: Bool = true, line: Int? = nil, customMetadata: [String: FlagValue] = [:],
        swiftName: String? = nil
    ) {
        self.definition = definition
        self.isEnabled = isEnabled
        self.line = line
        self.customMetadata = customMetadata
        self.swiftName = swiftName
    }

    /// The flag's key.
    public var key: String { definition.key }

    /// The Swift identifier of the flag: ``swiftName`` when set, otherwise the one derived from the key.
    public var swiftIdentifier: String {
        guard let swiftName else { return SwiftNames.identifier(forKey: key) }
        return SwiftNames.keywords.contains(swiftName) ? "`\(swiftName)`" : swiftName
    }

    /// ``swiftIdentifier`` without backticks, for comparing with names read from sources.
    public var bareSwiftIdentifier: String { swiftIdentifier.filter { $0 != "`" } }
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
