/// Who or what a flag is evaluated for: an optional targeting key and attributes.
///
/// Rules see the attributes at the top level of their data, plus `targetingKey` and
/// `$flagd.flagKey` / `$flagd.timestamp`, as in flagd.
///
/// ```swift
/// let context = EvaluationContext(targetingKey: "user-42", attributes: ["email": "ada@example.com"])
/// ```
public struct EvaluationContext: Sendable, Hashable {
    /// The stable identifier of the subject, used by `fractional` when no bucketing key is given.
    public var targetingKey: String?
    /// Any other attributes.
    public var attributes: [String: JSONValue]

    /// A context for `targetingKey` (anonymous when `nil`) with `attributes`.
    public init(targetingKey: String? = nil, attributes: [String: JSONValue] = [:]) {
        self.targetingKey = targetingKey
        self.attributes = attributes
    }

    /// Reads a context from a JSON object: `targetingKey` (if a string) becomes the targeting key
    /// and every other member an attribute. A non-object gives an empty context.
    public init(json: JSONValue) {
        var attributes = json.objectValue ?? [:]
        let targetingKey = attributes["targetingKey"]?.stringValue
        if targetingKey != nil { attributes["targetingKey"] = nil }
        self.init(targetingKey: targetingKey, attributes: attributes)
    }

    /// The targeting key, falling back to a string `targetingKey` attribute.
    var effectiveTargetingKey: String? {
        targetingKey ?? attributes["targetingKey"]?.stringValue
    }
}
