import Foundation
internal import JSONSyntax

/// Reads one flag-definition document, checks it against flagd's schema and compiles its rules.
struct FlagDefinitionsLoader {
    let sourceName: String
    private(set) var errors: [FlagDefinitionError] = []
    /// Compiles every flag's targeting, so that each `$evaluators` rule is compiled once per
    /// document however many flags refer to it.
    private var compiler = JSONLogicCompiler()
    /// The targeting rules of the document being loaded, when read from its bytes.
    private var rules = JSONTape<JSONValue>()
    /// The bytes of the document being loaded, which its flags' targeting texts are ranges of.
    private var documentBytes = Data()

    /// JSON nodes compiled so far (each evaluator once); loading is linear in the document.
    var compiledNodeCount: Int { compiler.compiledNodeCount }

    init(sourceName: String) {
        self.sourceName = sourceName
    }

    /// Loads a document from its bytes, reading the flags member by member.
    mutating func load(_ data: Data) -> [DefinedFlag] {
        let document: FlagDocument
        do {
            document = try FlagDocument(reading: data)
        } catch {
            report(nil, "\(error)", .sourceSkipped)
            return []
        }
        documentBytes = data
        defer { documentBytes = Data() }
        return load(document)
    }

    /// Loads a document parsed as a `JSONValue` tree first: the reference that the differential
    /// tests compare ``load(_:)-(Data)`` with.
    mutating func loadThroughJSONValue(_ data: Data) -> [DefinedFlag] {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: data)
        } catch {
            report(nil, "\(error)", .sourceSkipped)
            return []
        }
        return load(FlagDocument(document))
    }

    private mutating func load(_ document: FlagDocument) -> [DefinedFlag] {
        let top: [String: JSONValue]
        let flagsMember: FlagDocument.Flags
        switch document {
        case .notAnObject(let value):
            report(nil, "the document must be a JSON object with \"flags\", got \(value.typeName)", .sourceSkipped)
            return []
        case .object(let members, let flags, let documentRules):
            top = members
            flagsMember = flags
            rules = documentRules
        }
        defer { rules = JSONTape() }

        compiler = JSONLogicCompiler(evaluators: readEvaluators(top["$evaluators"]))
        let flagSetMetadata = readMetadata(top["metadata"], flagKey: nil) ?? [:]

        // The flags, read in `order`: by key for an object, as listed for an array.
        let entries: [(key: String, flag: FlagDocument.Flag)]
        var order: [Int]
        switch flagsMember {
        case .missing:
            report(nil, "the document has no \"flags\" member", .sourceSkipped)
            return []
        case .object(let members):
            entries = members
            // Sorted through their indices, and read in place: sorting or copying the entries
            // themselves retains and releases each one.
            order = members.indices.sorted { members[$0].key < members[$1].key }
            // Keys are unique, and an empty one sorts first.
            if let first = order.first, members[first].key.isEmpty {
                report("", "flag keys must not be empty", .flagSkipped)
                order.removeFirst()
            }
        case .other(.array(let items)):
            if let schema = top["$schema"]?.stringValue, schema.split(separator: "/").last == "flags.json" {
                report(
                    nil,
                    "\"flags\" is an array, which the declared schema \"\(schema)\" does not allow; use an object keyed by flag, or declare flagd.json",
                    .sourceSkipped
                )
                return []
            }
            var listed: [(key: String, flag: FlagDocument.Flag)] = []
            for (index, item) in items.enumerated() {
                guard case .string(let key)? = item["key"], !key.isEmpty else {
                    report("#\(index)", "array items need a non-empty string \"key\"", .flagSkipped)
                    continue
                }
                listed.append((key, FlagDocument.Flag(item)))
            }
            entries = listed
            order = Array(listed.indices)
        case .other(let other):
            report(nil, "\"flags\" must be an object or an array, got \(other.typeName)", .sourceSkipped)
            return []
        }

        var flags: [DefinedFlag] = []
        flags.reserveCapacity(order.count)
        for index in order {
            if let flag = readFlag(key: entries[index].key, entries[index].flag, flagSetMetadata: flagSetMetadata) {
                flags.append(flag)
            }
        }
        return flags
    }

    // MARK: - Document members

    private mutating func readEvaluators(_ value: JSONValue?) -> [String: JSONValue] {
        guard let value else { return [:] }
        guard case .object(let members) = value else {
            report(nil, "\"$evaluators\" must be an object of named rules, got \(value.typeName)", .valueIgnored)
            return [:]
        }
        for (name, rule) in members where rule.objectValue == nil {
            report(nil, "evaluator \"\(name)\" must be a rule object, got \(rule.typeName)", .nonConforming)
        }
        return members
    }

    /// Metadata values must be strings, numbers or Booleans. For flag-set metadata (`flagKey`
    /// nil) bad entries are dropped; for a flag, `nil` means the flag must be skipped.
    private mutating func readMetadata(_ value: JSONValue?, flagKey: String?) -> [String: JSONValue]? {
        guard let value else { return [:] }
        let owner = flagKey == nil ? "flag-set \"metadata\"" : "\"metadata\""
        guard case .object(let members) = value else {
            report(flagKey, "\(owner) must be an object, got \(value.typeName)", flagKey == nil ? .valueIgnored : .flagSkipped)
            return flagKey == nil ? [:] : nil
        }
        if members.values.allSatisfy(Self.isMetadataValue) { return members }
        var valid = members
        for key in members.keys.sorted() {
            switch members[key]! {
            case .string, .int, .double, .bool:
                continue
            case let other:
                let problem = "\(owner) value \"\(key)\" is \(other.typeName); metadata values must be strings, numbers or booleans"
                if flagKey == nil {
                    report(nil, problem, .valueIgnored)
                    valid[key] = nil
                } else {
                    report(flagKey, problem, .flagSkipped)
                    return nil
                }
            }
        }
        return valid
    }

    private static func isMetadataValue(_ value: JSONValue) -> Bool {
        switch value {
        case .string, .int, .double, .bool: true
        case .null, .array, .object: false
        }
    }

    // MARK: - Flags

    /// The one type of all `variants`, when every name is non-empty and every value has a
    /// variant type; `nil` otherwise (the caller then finds and reports the first problem).
    private static func commonVariantType(_ variants: [(name: String, value: JSONValue)]) -> FlagVariantType? {
        var common: FlagVariantType?
        for (name, value) in variants {
            guard !name.isEmpty, let type = FlagVariantType(of: value), common == nil || common == type else { return nil }
            common = type
        }
        return common
    }

    private mutating func readFlag(
        key: String,
        _ entry: FlagDocument.Flag,
        flagSetMetadata: [String: JSONValue]
    ) -> DefinedFlag? {
        let members: FlagDocument.FlagMembers
        switch entry {
        case .object(let found):
            members = found
        case .other(let value):
            report(key, "a flag must be an object, got \(value.typeName)", .flagSkipped)
            return nil
        }

        let state: FlagState
        switch members.state {
        case nil:
            report(key, "\"state\" is missing; use \"ENABLED\" or \"DISABLED\"", .flagSkipped)
            return nil
        case .string(let text)?:
            // Compared directly: `init(rawValue:)` searches a table of the names.
            guard let parsed: FlagState = text == "ENABLED" ? .enabled : text == "DISABLED" ? .disabled : nil else {
                report(key, "\"state\" is \"\(text)\"; use \"ENABLED\" or \"DISABLED\"", .flagSkipped)
                return nil
            }
            state = parsed
        case let other?:
            report(key, "\"state\" must be \"ENABLED\" or \"DISABLED\", got \(other.typeName)", .flagSkipped)
            return nil
        }

        let variants: [(name: String, value: JSONValue)]
        switch members.variants {
        case nil:
            report(key, "\"variants\" is missing", .flagSkipped)
            return nil
        case .other(let value)?:
            report(key, "\"variants\" must be an object of named values, got \(value.typeName)", .flagSkipped)
            return nil
        case .pairs(let pairs)?:
            variants = pairs
        }
        guard !variants.isEmpty else {
            report(key, "\"variants\" is empty; a flag needs at least one variant", .flagSkipped)
            return nil
        }
        let variantType: FlagVariantType
        if let common = Self.commonVariantType(variants) {
            variantType = common
        } else {
            guard let checked = checkVariants(variants, flagKey: key) else { return nil }
            variantType = checked
        }

        let defaultVariant: String?
        switch members.defaultVariant {
        case nil, .null?:
            defaultVariant = nil
        case .string(let name)?:
            defaultVariant = name
            if !variants.contains(where: { $0.name == name }) {
                report(key, "\"defaultVariant\" is \"\(name)\", which is not one of the variants", .flagFailsEvaluation)
            }
        case let other?:
            report(key, "\"defaultVariant\" must be a variant name or null, got \(other.typeName)", .flagSkipped)
            return nil
        }

        guard let flagMetadata = readMetadata(members.metadata, flagKey: key) else { return nil }
        let metadata =
            flagSetMetadata.isEmpty ? flagMetadata : flagSetMetadata.merging(flagMetadata) { _, flagValue in flagValue }

        let targeting = compileTargeting(members.targeting, flagKey: key)

        return DefinedFlag(
            key: key,
            state: state,
            variants: variants,
            variantType: variantType,
            defaultVariant: defaultVariant,
            metadata: metadata,
            targetingJSON: members.targeting.map { DefinedFlag.TargetingJSON($0, document: documentBytes) } ?? .none,
            source: sourceName,
            targeting: targeting
        )
    }

    /// Checks `variants` in name order and reports the first problem: an empty name, a value
    /// no variant may have, or values of several types. The type, when there is no problem.
    private mutating func checkVariants(_ variants: [(name: String, value: JSONValue)], flagKey key: String) -> FlagVariantType? {
        var types: Set<FlagVariantType> = []
        for (name, value) in variants.sorted(by: { $0.name < $1.name }) {
            if name.isEmpty {
                report(key, "variant names must not be empty", .flagSkipped)
                return nil
            }
            guard let type = FlagVariantType(of: value) else {
                report(key, "variant \"\(name)\" is \(value.typeName); variants must be booleans, strings, numbers or objects", .flagSkipped)
                return nil
            }
            types.insert(type)
        }
        guard types.count == 1, let variantType = types.first else {
            let names = types.map(\.rawValue).sorted().joined(separator: " and ")
            report(key, "\"variants\" mixes \(names) values; all variants of a flag must have one type", .flagSkipped)
            return nil
        }
        return variantType
    }

    private mutating func compileTargeting(
        _ targeting: FlagDocument.Targeting?,
        flagKey: String
    ) -> DefinedFlag.Targeting {
        guard let targeting else { return .none }
        let memberCount: Int?
        let typeName: String
        switch targeting {
        case .value(let json):
            memberCount = json.objectValue?.count
            typeName = json.typeName
        case .tape(let root, _):
            memberCount = rules.nodes[root].kind == .object ? Int(rules.nodes[root].count) : nil
            typeName = rules.typeName(at: root)
        }
        switch memberCount {
        case 0?:
            return .none
        case nil:
            report(flagKey, "\"targeting\" must be a rule object, got \(typeName)", .nonConforming)
        default:
            break
        }
        do {
            let rule: CompiledRule
            switch targeting {
            case .value(let json): rule = try compiler.compileRule(json)
            case .tape(let root, _): rule = try compiler.compileRule(rules, at: root)
            }
            for violation in compiler.schemaViolations {
                report(flagKey, "targeting: \(violation)", .nonConforming)
            }
            return .rule(rule)
        } catch {
            let problem = "targeting: \(error)"
            report(flagKey, problem, .flagFailsEvaluation)
            return .invalid(problem)
        }
    }

    private mutating func report(_ flagKey: String?, _ problem: String, _ effect: FlagDefinitionError.Effect) {
        errors.append(FlagDefinitionError(source: sourceName, flagKey: flagKey, problem: problem, effect: effect))
    }
}
