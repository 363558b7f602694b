import Foundation

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

    /// The targeting rule as written: a value, or JSON text parsed when asked for.
    enum TargetingJSON: Sendable {
        case none
        case value(JSONValue)
        /// The bytes at `range` of a document the loader has parsed once already (they cannot
        /// fail to parse again). Every flag of the document shares its bytes, rather than each
        /// keeping a string of its own rule (a tenth of the allocations of a large load).
        case text(Data, range: Range<Int>)

        init(_ targeting: FlagDocument.Targeting, document: Data) {
            switch targeting {
            case .value(let value): self = .value(value)
            case .tape(_, let text): self = .text(document, range: text)
            }
        }

        var value: JSONValue? {
            switch self {
            case .none: return nil
            case .value(let value): return value
            case .text(let document, let range):
                let start = document.startIndex
                do {
                    return try JSONValue(parsing: document[(start + range.lowerBound)..<(start + range.upperBound)])
                } catch {
                    preconditionFailure("the targeting text of a loaded flag no longer parses: \(error)")
                }
            }
        }
    }

    private final class Storage: Sendable {
        let key: String
        let state: FlagState
        /// Names and values, each name once. Kept as pairs: a flag has a few variants, and a
        /// `Dictionary` for each of 10,000 flags cost about a twentieth of loading them.
        let variants: [(name: String, value: JSONValue)]
        /// The same variants by name, for a flag with too many to scan.
        let variantsByName: [String: JSONValue]?
        let variantType: FlagVariantType
        let defaultVariant: String?
        let defaultValue: JSONValue?
        let metadata: [String: JSONValue]
        let targetingJSON: TargetingJSON
        let source: String
        let targeting: Targeting

        init(
            key: String, state: FlagState, variants: [(name: String, value: JSONValue)], variantType: FlagVariantType,
            defaultVariant: String?, metadata: [String: JSONValue], targetingJSON: TargetingJSON, source: String,
            targeting: Targeting
        ) {
            self.key = key
            self.state = state
            self.variants = variants
            self.variantsByName =
                variants.count > DefinedFlag.variantsScannedInOrder
                ? Dictionary(variants, uniquingKeysWith: { first, _ in first }) : nil
            self.variantType = variantType
            self.defaultVariant = defaultVariant
            self.defaultValue = defaultVariant.flatMap { name in variants.first(where: { $0.name == name })?.value }
            self.metadata = metadata
            self.targetingJSON = targetingJSON
            self.source = source
            self.targeting = targeting
        }
    }

    private let storage: Storage

    init(
        key: String, state: FlagState, variants: [(name: String, value: JSONValue)], variantType: FlagVariantType,
        defaultVariant: String?, metadata: [String: JSONValue], targetingJSON: TargetingJSON, source: String,
        targeting: Targeting
    ) {
        storage = Storage(
            key: key, state: state, variants: variants, variantType: variantType, defaultVariant: defaultVariant,
            metadata: metadata, targetingJSON: targetingJSON, source: source, targeting: targeting)
    }

    /// The flag key.
    public var key: String { storage.key }
    /// Whether the flag is in service (`ENABLED`) or returns the caller's default (`DISABLED`).
    public var state: FlagState { storage.state }
    /// Variant names and their values, all of ``variantType``.
    ///
    /// Built on each call (the flag keeps its variants as pairs); evaluation does not use it.
    public var variants: [String: JSONValue] {
        storage.variantsByName ?? Dictionary(storage.variants, uniquingKeysWith: { first, _ in first })
    }
    /// The JSON type every variant's value has.
    public var variantType: FlagVariantType { storage.variantType }
    /// The variant served without targeting; `nil` means "the caller's default".
    public var defaultVariant: String? { storage.defaultVariant }
    /// The flag's metadata with its flag set's metadata merged under it (flag keys win).
    public var metadata: [String: JSONValue] { storage.metadata }
    /// The targeting rule as written (before `$ref` substitution), if any.
    ///
    /// Parsed from the flag's text on each call when the flag was loaded from bytes (the
    /// loader compiles rules without building them as values; the flags of a document keep
    /// its bytes for this); evaluation does not use it.
    public var targetingJSON: JSONValue? { storage.targetingJSON.value }
    /// The name of the source the flag was loaded from.
    public var source: String { storage.source }

    var targeting: Targeting { storage.targeting }

    /// The value of the default variant, if it names one of the variants.
    var defaultValue: JSONValue? { storage.defaultValue }

    /// How many variants ``value(ofVariant:)`` compares one by one (comparing short strings is
    /// cheaper than hashing one); a flag with more has a dictionary as well.
    static let variantsScannedInOrder = 8

    /// The value of the variant `name`: a linear scan of a few variants, else a lookup.
    func value(ofVariant name: String) -> JSONValue? {
        if let variantsByName = storage.variantsByName { return variantsByName[name] }
        // By index, so that only the value found is copied.
        let variants = storage.variants
        for index in variants.indices where variants[index].name == name { return variants[index].value }
        return nil
    }

    /// The variant names, sorted.
    public var variantNames: [String] { storage.variants.map(\.name).sorted() }

    /// Whether the flag has a targeting rule.
    public var hasTargeting: Bool {
        if case .none = targeting { return false }
        return true
    }
}
