/// The outcome of evaluating one flag: OpenFeature's evaluation details.
public struct EvaluationResult: Sendable, Hashable {
    /// The flag key that was asked for.
    public var flagKey: String
    /// The served value: the chosen variant's value, or the caller's default.
    public var value: JSONValue
    /// The chosen variant, or `nil` when the caller's default was served.
    public var variant: String?
    /// Why the value was served (`STATIC`, `TARGETING_MATCH`, `DEFAULT`, `DISABLED` or `ERROR`).
    public var reason: EvaluationReason
    /// Set when ``reason`` is ``EvaluationReason/error``.
    public var errorCode: EvaluationErrorCode?
    /// A one-sentence explanation of the error.
    public var errorMessage: String?
    /// The flag's metadata (flag-set metadata merged under it); empty if the flag was not found.
    public var metadata: [String: JSONValue]

    /// A result as evaluation produces it.
    public init(
        flagKey: String,
        value: JSONValue,
        variant: String? = nil,
        reason: EvaluationReason,
        errorCode: EvaluationErrorCode? = nil,
        errorMessage: String? = nil,
        metadata: [String: JSONValue] = [:]
    ) {
        self.flagKey = flagKey
        self.value = value
        self.variant = variant
        self.reason = reason
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.metadata = metadata
    }

    /// The result as a JSON object, for command-line output and wire formats:
    /// `{"flag", "value", "variant", "reason", "errorCode", "errorMessage", "metadata"}`, with
    /// `null` for an absent variant, error code or message. Serialize it with
    /// ``JSONValue/serialized(prettyPrinted:)`` for stable, key-sorted text.
    public var jsonValue: JSONValue {
        .object([
            "flag": .string(flagKey),
            "value": value,
            "variant": variant.map(JSONValue.string) ?? .null,
            "reason": .string(reason.rawValue),
            "errorCode": errorCode.map { .string($0.rawValue) } ?? .null,
            "errorMessage": errorMessage.map(JSONValue.string) ?? .null,
            "metadata": .object(metadata),
        ])
    }
}
