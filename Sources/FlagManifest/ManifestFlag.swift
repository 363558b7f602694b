import FeatureFlags

/// One flag of a manifest: its registry definition plus what only the flagd format has.
public struct ManifestFlag: Sendable {
    /// Everything the registry knows about the flag.
    public var definition: FlagDefinition
    /// flagd's `state`: `DISABLED` flags are treated by flagd providers as if they did not exist.
    public var isEnabled: Bool
    /// The line the flag's key is on, when read from a file.
    public var line: Int?
    /// Metadata keys starting with `x-`, kept as written (for teams' own annotations). A key set
    /// without the prefix gets it, since a reader refuses any other unknown field: what is
    /// written always reads back.
    public var customMetadata: [String: FlagValue] {
        didSet { customMetadata = Self.prefixingCustomKeys(customMetadata) }
    }
    /// The name the Swift declaration gives the flag (the enum case or the typed value's
    /// property), when it is not the one derived from the key (``SwiftNames/identifier(forKey:)``):
    /// `iPadLayouts` for `ipad_layouts`. Metadata `swiftName`.
    public var swiftName: String?

    /// A manifest flag of `definition`; every other part has the default documented on its member.
    public init(
        definition: FlagDefinition, isEnabled: Bool = true, line: Int? = nil, customMetadata: [String: FlagValue] = [:],
        swiftName: String? = nil
    ) {
        self.definition = definition
        self.isEnabled = isEnabled
        self.line = line
        self.customMetadata = Self.prefixingCustomKeys(customMetadata)
        self.swiftName = swiftName
    }

    /// The flag's key.
    public var key: String { definition.key }

    /// Whether a metadata key is free for teams' own annotations: it starts with `x-`, judged by
    /// Unicode scalars (a combining mark after the `-` does not hide the prefix).
    public static func isCustomMetadataKey(_ key: String) -> Bool {
        key.unicodeScalars.starts(with: "x-".unicodeScalars)
    }

    private static func prefixingCustomKeys(_ metadata: [String: FlagValue]) -> [String: FlagValue] {
        guard metadata.keys.contains(where: { !isCustomMetadataKey($0) }) else { return metadata }
        // A key already written with the prefix wins over the same key without it.
        return Dictionary(
            metadata.sorted { isCustomMetadataKey($0.key) && !isCustomMetadataKey($1.key) }
                .map { (isCustomMetadataKey($0.key) ? $0.key : "x-\($0.key)", $0.value) },
            uniquingKeysWith: { first, _ in first })
    }

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
