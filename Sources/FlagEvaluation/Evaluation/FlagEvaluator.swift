import Foundation

/// Decides flag values for evaluation contexts from loaded ``FlagDefinitions``.
///
/// A value type holding compiled definitions; share it freely across tasks. Evaluation never
/// throws: problems come back as ``EvaluationResult/reason`` `ERROR` with an error code, and the
/// caller's default as the value.
///
/// ```swift
/// let evaluator = FlagEvaluator(definitions: definitions)
/// let result = evaluator.evaluate(
///     flag: "new-checkout", type: .boolean, default: false,
///     context: EvaluationContext(targetingKey: "user-42", attributes: ["country": "NZ"]),
///     now: Date()
/// )
/// if result.value == true { ... }
/// ```
public struct FlagEvaluator: Sendable {
    /// The compiled definitions evaluated.
    public let definitions: FlagDefinitions
    /// The algorithm `fractional` uses to pick buckets.
    public let bucketing: FractionalBucketing
    /// The most work one evaluation may do; past it the caller's default is served with error
    /// code `GENERAL`.
    public let limits: EvaluationLimits

    /// An evaluator of `definitions`, bucketing `fractional` with `bucketing` and bounding each evaluation by `limits`.
    public init(definitions: FlagDefinitions, bucketing: FractionalBucketing = .current, limits: EvaluationLimits = .default) {
        self.definitions = definitions
        self.bucketing = bucketing
        self.limits = limits
    }

    /// Evaluates `flag` for `context`.
    ///
    /// - Parameters:
    ///   - flag: The flag key.
    ///   - type: The type the caller expects; flags of another type give `TYPE_MISMATCH`.
    ///   - defaultValue: Served when the flag cannot provide a value (not found, disabled, no
    ///     default variant, an error).
    ///   - context: The targeting key and attributes rules see.
    ///   - now: The time rules see as `$flagd.timestamp` (whole Unix seconds).
    public func evaluate(
        flag key: String,
        type: EvaluationType,
        default defaultValue: JSONValue,
        context: EvaluationContext = EvaluationContext(),
        now: Date
    ) -> EvaluationResult {
        evaluate(flag: key, type: type, default: defaultValue, context: context, timestamp: Self.unixSeconds(now))
    }

    /// Evaluates a JSON request `{"flag": ..., "type": ..., "default": ..., "context": {...}}`, as a
    /// command-line tool or a server receives it. `type` is one of `boolean`, `string`, `integer`,
    /// `float`, `object`; when absent it is inferred from `default`. A malformed request gives
    /// `PARSE_ERROR`.
    public func evaluate(request: JSONValue, now: Date) -> EvaluationResult {
        let key = request["flag"]?.stringValue ?? ""
        let defaultValue = request["default"] ?? .null
        let type: EvaluationType?
        if let name = request["type"]?.stringValue {
            type = EvaluationType(rawValue: name)
        } else {
            type = switch defaultValue {
            case .bool: .boolean
            case .string: .string
            case .int: .integer
            case .double: .float
            case .object: .object
            default: nil
            }
        }
        guard !key.isEmpty, let type else {
            return EvaluationResult(
                flagKey: key,
                value: defaultValue,
                reason: .error,
                errorCode: .parseError,
                errorMessage: key.isEmpty
                    ? "the request needs a \"flag\" string"
                    : "the request's \"type\" must be boolean, string, integer, float or object"
            )
        }
        return evaluate(
            flag: key,
            type: type,
            default: defaultValue,
            context: EvaluationContext(json: request["context"] ?? .object([:])),
            now: now
        )
    }

    /// Whole Unix seconds, 64-bit on every platform (a 32-bit `Int` ends in January 2038); 0 for
    /// a date beyond `Int64`.
    static func unixSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        return Int64(exactly: seconds) ?? 0
    }

    func evaluate(
        flag key: String,
        type: EvaluationType,
        default defaultValue: JSONValue,
        context: EvaluationContext,
        timestamp: Int64
    ) -> EvaluationResult {
        guard let flag = definitions.flag(key) else {
            return EvaluationResult(
                flagKey: key, value: defaultValue, reason: .error, errorCode: .flagNotFound,
                errorMessage: "flag \"\(key)\" is not defined"
            )
        }
        func failure(_ code: EvaluationErrorCode, _ message: String) -> EvaluationResult {
            EvaluationResult(
                flagKey: key, value: defaultValue, reason: .error, errorCode: code, errorMessage: message,
                metadata: flag.metadata
            )
        }
        func serve(_ variant: String?, _ reason: EvaluationReason, value known: JSONValue? = nil) -> EvaluationResult {
            guard let variant else {
                return EvaluationResult(flagKey: key, value: defaultValue, reason: reason, metadata: flag.metadata)
            }
            guard let raw = known ?? flag.value(ofVariant: variant) else {
                return failure(.general, "variant \"\(variant)\" is not one of the flag's variants")
            }
            let value: JSONValue
            switch type {
            case .integer:
                guard let integer = raw.intValue else {
                    return failure(.typeMismatch, "variant \"\(variant)\" is \(raw.serialized()), not an integer")
                }
                value = .int(integer)
            case .float:
                value = .double(raw.doubleValue ?? 0)
            default:
                value = raw
            }
            return EvaluationResult(flagKey: key, value: value, variant: variant, reason: reason, metadata: flag.metadata)
        }

        if flag.state == .disabled {
            return EvaluationResult(flagKey: key, value: defaultValue, reason: .disabled, metadata: flag.metadata)
        }
        guard type.accepts(flag.variantType) else {
            return failure(.typeMismatch, "flag \"\(key)\" has \(flag.variantType.rawValue) variants, not \(type.rawValue)")
        }

        switch flag.targeting {
        case .none:
            return serve(flag.defaultVariant, flag.defaultVariant == nil ? .default : .static, value: flag.defaultValue)
        case .invalid(let message):
            return failure(.parseError, message)
        case .rule(let rule):
            let environment = LogicEnvironment(
                flagKey: key, targetingKey: context.effectiveTargetingKey, bucketing: bucketing
            )
            let outcome: JSONValue
            switch rule.evaluate(.context(context, flagKey: key, timestamp: timestamp), environment, limits: limits) {
            case .success(let value): outcome = value
            case .failure(let exceeded): return failure(.general, "\(exceeded)")
            }
            let variant: String
            switch outcome {
            case .null:
                return serve(flag.defaultVariant, .default, value: flag.defaultValue)
            case .string(let name):
                variant = name
            case .bool, .int, .double:
                // flagd uses the text of a Boolean or number as the variant name.
                variant = JavaScriptSemantics.toJSString(outcome)
            case .array, .object:
                return failure(.general, "targeting returned \(outcome.typeName) \(outcome.serialized()), not a variant name")
            }
            guard let value = flag.value(ofVariant: variant) else {
                return failure(.general, "targeting returned \"\(variant)\", which is not one of the flag's variants")
            }
            return serve(variant, .targetingMatch, value: value)
        }
    }
}
