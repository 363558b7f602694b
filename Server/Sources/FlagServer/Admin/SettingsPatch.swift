import FlagEvaluation
import FlagServerModel

/// `PATCH /admin/v1/environments/{env}/flags/{key}/settings`: a JSON Merge Patch (RFC 7396,
/// `application/merge-patch+json`) of the flag's settings there, so that a kill switch
/// (`{"enabled": false}`) changes on/off alone and keeps the default variant and the rule.
///
/// A member that is absent is kept; `null` removes it (`"targeting": null` drops the rule,
/// `"defaultVariant": null` leaves none); an object merges into the current one member by member,
/// as RFC 7396 says, so a rule is best replaced whole with `PUT`. `reason` is the audit's reason,
/// not a setting.
struct SettingsPatch: DocumentedRequestBody {
    static var schemaName: String { "SettingsPatch" }

    /// The patch without `reason`.
    var patch: JSONValue
    var reason: String?

    init(from decoder: any Decoder) throws {
        guard case .object(var members) = try JSONValue(from: decoder) else {
            throw DecodingError.typeMismatch(
                [String: JSONValue].self, .init(codingPath: [], debugDescription: "a merge patch of settings is an object"))
        }
        reason = members.removeValue(forKey: "reason")?.stringValue
        patch = .object(members)
    }

    /// `settings` with the patch applied.
    ///
    /// - Throws: ``AdminError/badRequest(_:)`` when the patch removes `enabled` or leaves a
    ///   member of the wrong type.
    func applied(to settings: FlagSettings) throws(AdminError) -> FlagSettings {
        var current: [String: JSONValue] = [
            "enabled": .bool(settings.enabled), "defaultVariant": settings.defaultVariant.map(JSONValue.string) ?? .null,
        ]
        if let targeting = settings.targeting { current["targeting"] = targeting }
        let merged = JSONValue.object(current).merging(patch: patch)
        guard case .bool(let enabled) = merged["enabled"] ?? .null else {
            throw .badRequest("enabled: a flag is on or off; it cannot be removed (send true or false)")
        }
        let defaultVariant: String?
        switch merged["defaultVariant"] ?? .null {
        case .null: defaultVariant = nil
        case .string(let name): defaultVariant = name
        case let other: throw .badRequest("defaultVariant: expected a variant name or null, got \(other.typeName)")
        }
        let targeting: JSONValue?
        switch merged["targeting"] ?? .null {
        case .null: targeting = nil
        case .object(let members) where members.isEmpty: targeting = nil
        case .object(let members): targeting = .object(members)
        case let other: throw .badRequest("targeting: expected a rule object or null, got \(other.typeName)")
        }
        return FlagSettings(enabled: enabled, defaultVariant: defaultVariant, targeting: targeting)
    }
}
