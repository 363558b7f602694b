import FeatureFlags

/// Descriptions that never show who flags are evaluated for: a context's targeting key,
/// attribute values and app context values print as `<REDACTED>`, in `description`, `debugDescription` and `dump`.
extension RemoteEvaluationContext: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The context with its targeting key, attribute values and app context as `<REDACTED>`.
    public var description: String {
        "RemoteEvaluationContext(targetingKey: \(targetingKey == nil ? "nil" : redacted), attributes: \(attributes.redactedDescription), appContext: \(appContext?.attributes.redactedDescription ?? "nil"))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the context's fields, redacted alike.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "targetingKey": targetingKey == nil ? "nil" : redacted,
                "attributes": attributes.redactedMirror,
                "appContext": appContext?.attributes.redactedMirror as Any,
            ], displayStyle: .struct)
    }
}

extension RemoteSource: CustomStringConvertible, CustomDebugStringConvertible {
    /// `appConfig`, or `ofrep` with its context redacted.
    public var description: String {
        switch self {
        case .appConfig: "appConfig"
        case .ofrep(let context): "ofrep(context: \(context))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
