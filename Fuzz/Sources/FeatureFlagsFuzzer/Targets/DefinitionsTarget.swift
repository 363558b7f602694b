@_spi(Differential) import FlagEvaluation
import Foundation

/// flagd flag definitions, loaded and evaluated for contexts derived from the input.
///
/// The input is a flag-definition document, optionally followed by a NUL byte and a JSON
/// evaluation context (`{"targetingKey": ..., ...}`). Every flag is evaluated as every type, for
/// that context and a few fixed ones.
///
/// Invariants:
/// - every loaded flag's variants have its variant type, and its default variant (if any) is one
///   of them, or an error says it is not;
/// - an evaluation names the flag it was asked for; an error serves the caller's default;
/// - a served variant is one of the flag's variants, and the value is that variant's value in the
///   requested type;
/// - a missing flag gives `FLAG_NOT_FOUND`; evaluating twice gives the same result;
/// - loading from the bytes (rules compiled from a tape, flags read member by member) gives what
///   loading through one `JSONValue` tree gives: the same errors word for word, the same flags
///   and the same evaluations.
enum DefinitionsTarget {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static let fixedContexts: [EvaluationContext] = [
        EvaluationContext(),
        EvaluationContext(
            targetingKey: "user-1",
            attributes: [
                "email": "ada@example.com", "age": 42, "version": "1.2.3", "tier": "gold", "admin": true,
                "ratio": 0.5, "tags": ["a", "b"], "nested": ["level": ["deep": "value"]],
            ]),
    ]

    static func run(_ data: Data) {
        let (definitionsData, contextData) = split(data)
        let source = FlagSource(name: "fuzz", data: definitionsData)
        let (definitions, errors, compiledNodes) = FlagDefinitions.loadCountingWork([source])
        let reference = FlagDefinitions.loadCountingWork([source], throughJSONValue: true)
        Invariant.require(
            errors.map(\.description) == reference.errors.map(\.description) && compiledNodes == reference.compiledNodes,
            "loading from the bytes gave \(errors) (\(compiledNodes) nodes), through a JSONValue \(reference.errors) (\(reference.compiledNodes) nodes)")
        Invariant.require(
            definitions.keys == reference.definitions.keys,
            "loading from the bytes gave the flags \(definitions.keys), through a JSONValue \(reference.definitions.keys)")
        for error in errors {
            Invariant.require(error.source == "fuzz", "a definition error names the source '\(error.source)', not 'fuzz'")
        }
        var contexts = fixedContexts
        if let contextData, let json = try? JSONValue(parsing: contextData) {
            contexts.append(EvaluationContext(json: json))
        }
        let evaluator = FlagEvaluator(definitions: definitions)
        let referenceEvaluator = FlagEvaluator(definitions: reference.definitions)

        for key in definitions.keys {
            guard let flag = definitions[key] else { Invariant.fail("keys lists '\(key)' but the subscript has no flag") }
            Invariant.require(flag.key == key, "the flag stored under '\(key)' says its key is '\(flag.key)'")
            if let other = reference.definitions[key] {
                Invariant.require(
                    flag.state == other.state && flag.variantType == other.variantType && flag.defaultVariant == other.defaultVariant
                        && flag.variants == other.variants && flag.metadata == other.metadata
                        && flag.targetingJSON == other.targetingJSON && flag.hasTargeting == other.hasTargeting,
                    "'\(key)' loads differently from the bytes and through a JSONValue")
            }
            for (name, value) in flag.variants {
                Invariant.require(
                    variantType(of: value) == flag.variantType,
                    "variant '\(name)' of '\(key)' is \(value.typeName), but the flag's variants are \(flag.variantType)")
            }
            if let defaultVariant = flag.defaultVariant, flag.variants[defaultVariant] == nil {
                Invariant.require(
                    errors.contains { $0.flagKey == key },
                    "'\(key)' has the default variant '\(defaultVariant)', which is not one of its variants, and no error says so")
            }
            for context in contexts {
                for type in EvaluationType.allCases {
                    check(evaluator, flag: flag, type: type, context: context, reference: referenceEvaluator)
                }
            }
        }

        let missing = evaluator.evaluate(
            flag: "\u{0}not-a-flag", type: .boolean, default: false, context: contexts[0], now: now)
        Invariant.require(
            missing.errorCode == .flagNotFound && missing.value == false,
            "a missing flag gave \(missing) instead of FLAG_NOT_FOUND with the default")
    }

    /// Checks one evaluation, and that `reference` (the same definitions loaded through a
    /// `JSONValue`) gives the same result.
    static func check(
        _ evaluator: FlagEvaluator, flag: DefinedFlag, type: EvaluationType, context: EvaluationContext, reference: FlagEvaluator
    ) {
        let key = flag.key
        let defaultValue = defaultValue(for: type)
        let result = evaluator.evaluate(flag: key, type: type, default: defaultValue, context: context, now: now)
        let again = evaluator.evaluate(flag: key, type: type, default: defaultValue, context: context, now: now)
        Invariant.require(result == again, "evaluating '\(key)' twice gave \(result) then \(again)")
        let referenceResult = reference.evaluate(flag: key, type: type, default: defaultValue, context: context, now: now)
        Invariant.require(
            result == referenceResult,
            "'\(key)' evaluates to \(result) loaded from the bytes, \(referenceResult) through a JSONValue")
        Invariant.require(result.flagKey == key, "evaluating '\(key)' gave a result for '\(result.flagKey)'")

        if result.errorCode != nil || result.reason == .error {
            Invariant.require(
                result.errorCode != nil && result.reason == .error,
                "'\(key)' has reason \(result.reason) with error code \(String(describing: result.errorCode))")
            Invariant.require(
                result.value == defaultValue, "'\(key)' failed (\(String(describing: result.errorCode))) but served \(result.value), not the default")
            return
        }
        guard let variant = result.variant else {
            Invariant.require(
                result.value == defaultValue, "'\(key)' served no variant but \(result.value), not the caller's default")
            return
        }
        guard let raw = flag.variants[variant] else {
            Invariant.fail("'\(key)' served variant '\(variant)', which is not one of its variants")
        }
        let expected: JSONValue? =
            switch type {
            case .integer: raw.intValue.map(JSONValue.int)
            case .float: raw.doubleValue.map(JSONValue.double)
            default: raw
            }
        Invariant.require(
            result.value == expected, "'\(key)' served variant '\(variant)' as \(result.value), expected \(String(describing: expected))")
        Invariant.require(
            matches(result.value, type), "'\(key)' evaluated as \(type) served \(result.value.typeName)")
    }

    static func defaultValue(for type: EvaluationType) -> JSONValue {
        switch type {
        case .boolean: false
        case .string: "fuzz-default"
        case .integer: -7
        case .float: 0.25
        case .object: ["fuzz": "default"]
        }
    }

    static func variantType(of value: JSONValue) -> FlagVariantType? {
        switch value {
        case .bool: .boolean
        case .string: .string
        case .int, .double: .number
        case .object: .object
        case .null, .array: nil
        }
    }

    static func matches(_ value: JSONValue, _ type: EvaluationType) -> Bool {
        switch (type, value) {
        case (.boolean, .bool), (.string, .string), (.integer, .int), (.float, .double), (.object, .object): true
        default: false
        }
    }

    /// The definitions, and the context after the first NUL byte if there is one.
    static func split(_ data: Data) -> (Data, Data?) {
        // `memchr`, not `Data.firstIndex(of:)`: the generic search runs instrumented code per byte
        // and cost a quarter of this target's time on 20 kB documents.
        let offset = data.withUnsafeBytes { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base, 0, buffer.count) else { return nil }
            return UnsafeRawPointer(found) - base
        }
        guard let offset else { return (data, nil) }
        let separator = data.startIndex + offset
        return (data[data.startIndex..<separator], data[(separator + 1)...])
    }
}
