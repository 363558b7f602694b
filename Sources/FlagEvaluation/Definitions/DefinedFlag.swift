/// One loaded flag: its variants, default variant, metadata and targeting.
public struct DefinedFlag: Sendable {
    /// How the targeting was compiled.
    enum Targeting: Sendable {
        case none
        case rule(CompiledRule)
        /// The rule cannot run; evaluations return `PARSE_ERROR` with this message.
        case invalid(String)
    }

    /// The flag key.
    public let key: String
    public let state: FlagState
    /// Variant names and their values, all of ``variantType``.
    public let variants: [String: JSONValue]
    public let variantType: FlagVariantType
    /// The variant served without targeting; `nil` means "the caller's default".
    public let defaultVariant: String?
    /// The flag's metadata with its flag set's metadata merged under it (flag keys win).
    public let metadata: [String: JSONValue]
    /// The targeting rule as written (before `$ref` substitution), if any.
    public let targetingJSON: JSONValue?
    /// The name of the source the flag was loaded from.
    public let source: String

    let targeting: Targeting

    /// The variant names, sorted.
    public var variantNames: [String] { variants.keys.sorted() }

    /// Whether the flag has a targeting rule.
    public var hasTargeting: Bool {
        if case .none = targeting { return false }
        return true
    }
}
