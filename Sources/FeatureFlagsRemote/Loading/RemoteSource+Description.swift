import FeatureFlags

/// Descriptions that never show who flags are evaluated for: a context's targeting key,
/// attribute values and app context values print as `<REDACTED>`, in `description`, `debugDescription` and `dump`.
extension RemoteEvaluationContext: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "RemoteEvaluationContext(targetingKey: \(targetingKey == nil ? "nil" : redacted), attributes: \(attributes.redactedDescription), appContext: \(appContext?.attributes.redactedDescription ?? "nil"))"
    }

    public var debugDescription: String { description }

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
    public var description: String {
        switch self {
        case .appConfig: "appConfig"
        case .ofrep(let context): "ofrep(context: \(context))"
        }
    }

    public var debugDescription: String { description }
}
