import FeatureFlags

/// One flag as the command-line debug menu shows it.
public struct FlagRow: Sendable {
    /// The flag as the manifest declares it.
    public let definition: FlagDefinition
    /// The flag's value with its layer, reason and every layer's report.
    public let details: FlagEvaluationDetails
    /// Whether a local override is set (whether or not it won).
    public let isOverridden: Bool

    /// The value as shown: JSON text, or `<REDACTED>` for sensitive flags.
    public var shownValue: String {
        definition.isSensitive ? "<REDACTED>" : details.value.jsonString
    }

    /// The row as a JSON object, for `--format json`.
    public var json: FlagValue {
        var object: [String: FlagValue] = [
            "key": .string(definition.key),
            "type": .string(definition.type.rawValue),
            "value": definition.isSensitive ? .string("<REDACTED>") : details.value,
            "layer": .string(details.layer.name),
            "reason": .string(details.reason.rawValue),
            "overridden": .bool(isOverridden),
            "displayName": .string(definition.displayName),
        ]
        if let phase = definition.phase { object["phase"] = .int(phase) }
        if let owner = definition.owner { object["owner"] = .string(owner) }
        if let message = details.message { object["message"] = .string(message) }
        return .object(object)
    }

    /// The row with what every layer said, for `flags get --format json`.
    public var detailedJSON: FlagValue {
        guard case .object(var object) = json else { return json }
        object["layers"] = .array(details.layers.map { report in
            var entry: [String: FlagValue] = ["layer": .string(report.layer.name)]
            if let value = report.value { entry["value"] = definition.isSensitive ? .string("<REDACTED>") : value }
            switch report.status {
            case .selected: entry["status"] = "selected"
            case .shadowed: entry["status"] = "shadowed"
            case .unset: entry["status"] = "unset"
            case .ignored(let why):
                entry["status"] = "ignored"
                entry["reason"] = .string(why)
            }
            return .object(entry)
        })
        return .object(object)
    }
}
