/// One flag as the debug menu shows it.
public struct FlagDebugRow: Sendable, Hashable, Identifiable {
    /// The flag's key.
    public var id: String { key }

    /// The flag's key.
    public let key: String
    /// The name the menu shows.
    public let displayName: String
    /// What the flag is for.
    public let description: String
    /// The flag's lifecycle phase; `nil` when it has none.
    public let phase: Int?
    /// Who owns the flag; `nil` when not declared.
    public let owner: String?
    /// When the flag is to be removed, as declared; `nil` when not.
    public let removalTarget: String?
    /// The type of the flag's value.
    public let type: FlagValueType
    /// The resolved value.
    public let value: FlagValue
    /// The value as the menu shows it (`on`/`off` for Booleans, `<REDACTED>` for sensitive values).
    public let displayValue: String
    /// The layer the value came from.
    public let layer: FlagLayer
    /// Whether a local override is set.
    public let isOverridden: Bool
    /// Whether overrides can be set in this configuration.
    public let canOverride: Bool
    /// Whether users may toggle the flag.
    public let isUserTogglable: Bool
    /// Why the value is what it is (a dependency or conflict turning it off, for example).
    public let note: String?
    /// Whether the value must never be shown or logged.
    public let isSensitive: Bool
    /// The user's preference, for user-togglable flags that have one.
    public let userPreference: FlagValue?
    /// The preference as the menu shows it (`<REDACTED>` for sensitive values).
    public let displayUserPreference: String?
    /// How the menu edits the value.
    public let editor: FlagDebugEditor
    /// The value as an editor field starts out: the text ``FlagDebugModel/setOverride(parsing:forKey:)``
    /// takes back. Empty for sensitive values, which are never shown.
    public let editText: String
}
