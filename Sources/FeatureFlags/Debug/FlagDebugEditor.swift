/// How the debug menu edits a flag's value, chosen from the flag's type and the choices the app
/// declared for it (see ``FlagChoices``).
public enum FlagDebugEditor: Sendable, Hashable {
    /// A switch (Boolean flags).
    case toggle
    /// A whole-number field.
    case integer
    /// A decimal-number field.
    case decimal
    /// A free-text field (strings, and enum-like values whose cases the app did not declare).
    case text
    /// A picker over the declared values, in declaration order.
    case choice([FlagValue])
    /// A JSON object field (`Codable` values).
    case json
}
