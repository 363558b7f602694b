/// The app's flags: a `String`-backed, `CaseIterable` enum whose cases are the Boolean flags.
///
/// ```swift
/// enum AppFlag: String, CaseIterable, FeatureFlagKey {
///     case chatViewRedesign = "chat_view_redesign"
///
///     var metadata: FlagMetadata<AppFlag> {
///         switch self {
///         case .chatViewRedesign:
///             FlagMetadata("Chat view redesign", phase: 2, owner: "messaging", removalTarget: "3.0")
///         }
///     }
///
///     static let typedFlags: [any FlagDefinitionConvertible] = [AppConfig.pageSize]
/// }
/// ```
///
/// The raw values are the flags' keys everywhere outside Swift: override files, launch
/// arguments, remote payloads and manifests. Typed (non-Boolean) values are declared as
/// ``TypedFlag`` constants and listed in ``typedFlags`` so that they share the registry.
public protocol FeatureFlagKey: RawRepresentable, CaseIterable, Hashable, Sendable
where RawValue == String, AllCases: Sendable {
    /// What the flag declares about itself.
    var metadata: FlagMetadata<Self> { get }

    /// The typed values that belong to this registry. Empty by default.
    static var typedFlags: [any FlagDefinitionConvertible] { get }
}

extension FeatureFlagKey {
    /// No typed flags.
    public static var typedFlags: [any FlagDefinitionConvertible] { [] }

    /// The flag's definition in the registry.
    public var definition: FlagDefinition {
        let metadata = self.metadata
        return FlagDefinition(
            key: rawValue,
            type: .boolean,
            default: .bool(metadata.defaultValue),
            displayName: metadata.displayName,
            description: metadata.description,
            phase: metadata.phase,
            owner: metadata.owner,
            removalTarget: metadata.removalTarget,
            buildDefaults: metadata.enabledIn.map { enabled in
                Dictionary(uniqueKeysWithValues: BuildConfiguration.allCases.map { ($0, .bool(enabled.contains($0))) })
            } ?? [:],
            followsPhasePolicy: metadata.enabledIn == nil,
            // Closures, not `\.rawValue`: in this generic context a key path would be
            // instantiated on every call, twice per flag while a registry is built.
            requires: metadata.requires.map { $0.rawValue },
            conflicts: metadata.conflicts.map { $0.rawValue },
            isUserTogglable: metadata.isUserTogglable,
            checking: metadata.checking
        )
    }
}
