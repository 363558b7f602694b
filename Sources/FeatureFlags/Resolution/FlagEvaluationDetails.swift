/// A flag's value with everything needed to explain it: the winning layer, an OpenFeature
/// reason and error code, and what every layer said.
///
/// ```swift
/// let details = flags.details(.sidebarRedesign)
/// print(details.layer, details.reason, details.message ?? "")
/// for report in details.layers { print(report) }
/// ```
///
/// For a flag marked sensitive, every description (`print`, string interpolation, `dump`) shows
/// the value as `<REDACTED>`; read ``value`` to use it.
public struct FlagEvaluationDetails: Sendable, Hashable, CustomStringConvertible {
    /// The flag's key.
    public let key: String
    /// The resolved value.
    public let value: FlagValue
    /// The variant name, when a remote provider gave one.
    public let variant: String?
    /// The layer whose value was used.
    public let layer: FlagLayer
    /// Why the flag has this value.
    public let reason: FlagReason
    /// What went wrong, if anything.
    public let errorCode: FlagErrorCode?
    /// A sentence explaining an error or an adjustment (dependency, conflict).
    public let message: String?
    /// What each layer said, lowest first.
    public let layers: [FlagLayerReport]
    /// Whether the value must not be logged.
    public let isSensitive: Bool

    /// Details as resolution produces them; tests and providers build them to compare.
    public init(
        key: String, value: FlagValue, variant: String? = nil, layer: FlagLayer, reason: FlagReason,
        errorCode: FlagErrorCode? = nil, message: String? = nil, layers: [FlagLayerReport] = [],
        isSensitive: Bool = false
    ) {
        self.key = key
        self.value = value
        self.variant = variant
        self.layer = layer
        self.reason = reason
        self.errorCode = errorCode
        self.message = message
        self.layers = layers
        self.isSensitive = isSensitive
    }

    /// `key = value [layer, reason]`, with the error code and message when there are; a sensitive value shows as `<REDACTED>`.
    public var description: String {
        var text = "\(key) = \(isSensitive ? "<REDACTED>" : value.jsonString) [\(layer), \(reason)]"
        if let errorCode { text += " \(errorCode)" }
        if let message { text += ": \(message)" }
        return text
    }
}

/// What one layer said about a flag.
public struct FlagLayerReport: Sendable, Hashable, CustomStringConvertible {
    /// How the layer's value was used.
    public enum Status: Sendable, Hashable {
        /// This layer's value is the result.
        case selected
        /// The layer had a value, but a higher layer won.
        case shadowed
        /// The layer said nothing.
        case unset
        /// The layer had a value that was not used, and why.
        case ignored(String)
    }

    /// The layer.
    public let layer: FlagLayer
    /// What the layer said, if anything.
    public let value: FlagValue?
    /// How the value was used.
    public let status: Status
    /// Whether the value must not be shown.
    let isSensitive: Bool

    /// A layer's report; a sensitive value is never shown in its description.
    public init(layer: FlagLayer, value: FlagValue?, status: Status, isSensitive: Bool = false) {
        self.layer = layer
        self.value = value
        self.status = status
        self.isSensitive = isSensitive
    }

    /// The layer, its value (`<REDACTED>` when sensitive, `—` when none) and how it was used.
    public var description: String {
        let shown = value.map { isSensitive ? "<REDACTED>" : $0.jsonString } ?? "—"
        switch status {
        case .selected: return "\(layer): \(shown) (selected)"
        case .shadowed: return "\(layer): \(shown) (shadowed)"
        case .unset: return "\(layer): —"
        case .ignored(let why): return "\(layer): \(shown) (ignored: \(why))"
        }
    }
}

extension FlagEvaluationDetails: CustomReflectable {
    /// Keeps the value of a sensitive flag out of `dump` and debugger summaries.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "key": key, "value": isSensitive ? "<REDACTED>" as Any : value as Any, "variant": variant as Any,
                "layer": layer, "reason": reason, "errorCode": errorCode as Any, "message": message as Any,
                "layers": layers, "isSensitive": isSensitive,
            ])
    }
}

extension FlagLayerReport: CustomReflectable {
    /// Keeps the value of a sensitive flag out of `dump` and debugger summaries.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "layer": layer, "value": isSensitive ? "<REDACTED>" as Any : value as Any, "status": status,
            ])
    }
}
