/// One loaded flag: its variants, default variant, metadata and targeting.
///
/// A reference to immutable storage: copying one (as every evaluation does when it looks the flag
/// up) retains one object rather than each of its members.
public struct DefinedFlag: Sendable {
    /// How the targeting was compiled.
    enum Targeting: Sendable {
        case none
        case rule(CompiledRule)
        /// The rule cannot run; evaluations return `PARSE_ERROR` with this message.
        case invalid(String)
    }

    private final class Storage: Sendable {
        let key: String
        let state: FlagState
        let variants: [String: JSONValue]
        let variantType: FlagVariantType
        let defaultVariant: String?
        let defaultValue: JSONValue?
        let metadata: [String: JSONValue]
        let targetingJSON: JSONValue?
        let source: String
        let targeting: Targeting

        init(
            key: String, state: FlagState, variants: [String: JSONValue], variantType: FlagVariantType,
            defaultVariant: String?, metadata: [String: JSONValue], targetingJSON: JSONValue?, source: String,
            targeting: Targeting
        ) {
            self.key = key
            self.state = state
            self.variants = variants
            self.variantType = variantType
            self.defaultVariant = defaultVariant
            self.defaultValue = defaultVariant.flatMap { variants[$0] }
            self.metadata = metadata
            self.targetingJSON = targetingJSON
            self.source = source
            self.targeting = targeting
        }
    }

    private let storage: Storage

    init(
        key: String, state: FlagState, variants: [String: JSONValue], variantType: FlagVariantType,
        defaultVariant: String?, metadata: [String: JSONValue], targetingJSON: JSONValue?, source: String,
        targeting: Targeting
    ) {
        storage = Storage(
            key: key, state: state, variants: variants, variantType: variantType, defaultVariant: defaultVariant,
            metadata: metadata, targetingJSON: targetingJSON, source: source, targeting: targeting)
    }

    /// The flag key.
    public var key: String { storage.key }
    public var state: FlagState { storage.state }
    /// Variant names and their values, all of ``variantType``.
    public var variants: [String: JSONValue] { storage.variants }
    public var variantType: FlagVariantType { storage.variantType }
    /// The variant served without targeting; `nil` means "the caller's default".
    public var defaultVariant: String? { storage.defaultVariant }
    /// The flag's metadata with its flag set's metadata merged under it (flag keys win).
    public var metadata: [String: JSONValue] { storage.metadata }
    /// The targeting rule as written (before `$ref` substitution), if any.
    public var targetingJSON: JSONValue? { storage.targetingJSON }
    /// The name of the source the flag was loaded from.
    public var source: String { storage.source }

    var targeting: Targeting { storage.targeting }

    /// The value of the default variant, if it names one of the variants.
    var defaultValue: JSONValue? { storage.defaultValue }

    /// The value of the variant `name`: a linear scan of a few variants (comparing short strings
    /// is cheaper than hashing one), else a lookup.
    func value(ofVariant name: String) -> JSONValue? {
        let variants = storage.variants
        if variants.count > 8 { return variants[name] }
        for (candidate, value) in variants where candidate == name { return value }
        return nil
    }

    /// The variant names, sorted.
    public var variantNames: [String] { variants.keys.sorted() }

    /// Whether the flag has a targeting rule.
    public var hasTargeting: Bool {
        if case .none = targeting { return false }
        return true
    }
}
