public import FeatureFlags
import FeatureFlagsTargeting
public import FlagEvaluation
public import Foundation
public import Tracing

/// One flag evaluation in OpenTelemetry's semantic conventions for feature flags: the
/// `feature_flag.evaluation` event and its `feature_flag.*` attributes.
///
/// Build one from what the library produced (an exposure, a ``FlagEvaluationDetails`` from a
/// snapshot, an ``EvaluationResult`` from a ``FlagEvaluator``) and add it to a span with
/// `span.addFlagEvaluation(_:)`, or let a ``FlagEvaluationSpanReporter`` do both.
///
/// A sensitive flag's value never becomes an attribute: only its variant name does.
public struct FlagEvaluationEvent: Sendable, Hashable {
    /// The event's name: `feature_flag.evaluation`.
    public static let name = "feature_flag.evaluation"

    /// The attribute names, as the semantic conventions spell them.
    public enum AttributeName {
        public static let key = "feature_flag.key"
        public static let variant = "feature_flag.result.variant"
        public static let value = "feature_flag.result.value"
        public static let reason = "feature_flag.result.reason"
        public static let providerName = "feature_flag.provider.name"
        public static let contextID = "feature_flag.context.id"
        public static let setID = "feature_flag.set.id"
        public static let version = "feature_flag.version"
        public static let errorType = "error.type"
        public static let errorMessage = "feature_flag.error.message"
    }

    /// The flag's key.
    public var key: String
    /// The variant served, when there is one.
    public var variant: String?
    /// The value served; `nil` when it must not leave the process (a sensitive flag) or is not
    /// known.
    public var value: FlagValue?
    /// Why the value was served, in OpenFeature's upper-case vocabulary (`TARGETING_MATCH`);
    /// written in lower case, as the conventions ask.
    public var reason: FlagReason
    /// Who evaluated the flag (`feature_flag.provider.name`).
    public var providerName: String?
    /// The evaluation context's targeting key: the unit.
    public var contextID: String?
    /// The flag set the flag belongs to (an environment, a project).
    public var setID: String?
    /// The version of the rules the value came from: the server's revision.
    public var version: String?
    /// What went wrong, in OpenFeature's vocabulary (`FLAG_NOT_FOUND`); written in lower case.
    public var errorCode: String?
    /// A sentence explaining the error.
    public var errorMessage: String?
    /// When the flag was evaluated.
    public var time: Date

    public init(
        key: String, variant: String? = nil, value: FlagValue? = nil, reason: FlagReason, providerName: String? = nil,
        contextID: String? = nil, setID: String? = nil, version: String? = nil, errorCode: String? = nil,
        errorMessage: String? = nil, time: Date = Date()
    ) {
        self.key = key
        self.variant = variant
        self.value = value
        self.reason = reason
        self.providerName = providerName
        self.contextID = contextID
        self.setID = setID
        self.version = version
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.time = time
    }

    /// An exposure a ``FlagEventRecorder`` recorded: the unit, the variant, the server's reason
    /// and revision. The exposure of a sensitive flag carries no value, so neither does the event.
    public init(_ exposure: FlagExposure, providerName: String? = nil, setID: String? = nil) {
        self.init(
            key: exposure.flag, variant: exposure.variant, value: exposure.value, reason: exposure.reason,
            providerName: providerName, contextID: exposure.unit, setID: setID, version: exposure.revision,
            time: exposure.time)
    }

    /// A flag's explanation from a manager or a snapshot (`snapshot.details(.flag)`), for the
    /// unit `contextID`. The value is left out when the flag is sensitive.
    public init(
        _ details: FlagEvaluationDetails, contextID: String?, providerName: String? = nil, setID: String? = nil,
        version: String? = nil, time: Date = Date()
    ) {
        self.init(
            key: details.key, variant: details.variant, value: details.isSensitive ? nil : details.value,
            reason: details.reason, providerName: providerName, contextID: contextID, setID: setID, version: version,
            errorCode: details.errorCode?.rawValue, errorMessage: details.errorCode == nil ? nil : details.message,
            time: time)
    }

    /// A result of ``FlagEvaluator`` for `context`. The flag's metadata supplies what the
    /// conventions map from it: `flagSetId` the set, `version` the version, and `sensitive: true`
    /// (a manifest's mark) leaves the value out.
    public init(
        _ result: EvaluationResult, context: EvaluationContext, providerName: String? = nil, time: Date = Date()
    ) {
        let sensitive = result.metadata["sensitive"]?.boolValue == true
        self.init(
            key: result.flagKey, variant: result.variant, value: sensitive ? nil : FlagValue(result.value),
            reason: FlagReason(rawValue: result.reason.rawValue), providerName: providerName,
            contextID: context.targetingKey ?? context.attributes["targetingKey"]?.stringValue,
            setID: result.metadata["flagSetId"]?.stringValue, version: result.metadata["version"].flatMap(Self.text),
            errorCode: result.errorCode?.rawValue, errorMessage: result.errorMessage, time: time)
    }

    /// The event's attributes. Reasons and error codes are lower case (`targeting_match`,
    /// `flag_not_found`); a Boolean, integer, number or string value keeps its type and any
    /// other value is written as JSON.
    public var attributes: SpanAttributes {
        var attributes: SpanAttributes = [:]
        attributes.set(AttributeName.key, value: .string(key))
        attributes.set(AttributeName.reason, value: .string(reason.rawValue.lowercased()))
        if let variant { attributes.set(AttributeName.variant, value: .string(variant)) }
        if let value { attributes.set(AttributeName.value, value: Self.attribute(value)) }
        if let providerName { attributes.set(AttributeName.providerName, value: .string(providerName)) }
        if let contextID { attributes.set(AttributeName.contextID, value: .string(contextID)) }
        if let setID { attributes.set(AttributeName.setID, value: .string(setID)) }
        if let version { attributes.set(AttributeName.version, value: .string(version)) }
        if let errorCode { attributes.set(AttributeName.errorType, value: .string(errorCode.lowercased())) }
        if let errorMessage { attributes.set(AttributeName.errorMessage, value: .string(errorMessage)) }
        return attributes
    }

    /// The span event: `feature_flag.evaluation` at ``time`` with ``attributes``.
    public var spanEvent: SpanEvent {
        let nanoseconds = max(0, time.timeIntervalSince1970 * 1_000_000_000)
        return SpanEvent(
            name: Self.name,
            at: DefaultTracerClock.Timestamp(
                nanosecondsSinceEpoch: nanoseconds < Double(UInt64.max) ? UInt64(nanoseconds) : UInt64.max),
            attributes: attributes)
    }

    private static func attribute(_ value: FlagValue) -> SpanAttribute {
        switch value {
        case .bool(let bool): .bool(bool)
        case .int(let int): .int64(Int64(int))
        case .double(let double): .double(double)
        case .string(let string): .string(string)
        case .array, .object, .null: .string(value.jsonString)
        }
    }

    /// A version written as a string or a number in the flag's metadata.
    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let string): string
        case .int(let int): String(int)
        default: nil
        }
    }
}
