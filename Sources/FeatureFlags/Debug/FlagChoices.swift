/// The values a flag may take, for the debug menu's picker: an enum's cases, declared by the app
/// because the registry knows a flag's JSON type (a string), not the Swift enum behind it.
///
/// ```swift
/// let menu = FlagDebugModel(flags, choices: [FlagChoices(AppConfig.composerStyle)])
/// ```
///
/// Flags without choices are edited as free text checked against their type.
public struct FlagChoices: Sendable, Hashable {
    /// The flag's key.
    public let key: String
    /// The values, in the order the picker lists them.
    public let values: [FlagValue]

    /// Every case of an enum-like typed flag.
    public init<Value: FlagValueConvertible & CaseIterable>(_ flag: TypedFlag<Value>) {
        self.init(key: flag.key, values: Value.allCases.map(\.flagValue))
    }

    /// Explicit values for a flag, by key (for registries loaded at run time).
    public init(key: String, values: [FlagValue]) {
        self.key = key
        self.values = values
    }
}
