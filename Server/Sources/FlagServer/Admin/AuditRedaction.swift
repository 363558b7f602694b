import FlagEvaluation

/// Hides the values of sensitive flags in audit listings: every variant value prints as
/// `<REDACTED>`.
enum AuditRedaction {
    static let placeholder: JSONValue = "<REDACTED>"

    static func redacted(_ entry: AuditEntry, flags: [String: FlagRecord]) -> AuditEntry {
        guard entry.subject == .flag else { return entry }
        let sensitive = flags[entry.key]?.metadata.sensitive == true
            || [entry.before, entry.after].contains { $0?["flag"]?["metadata"]?["sensitive"] == true }
        guard sensitive else { return entry }
        var copy = entry
        copy.before = entry.before.map(redact)
        copy.after = entry.after.map(redact)
        return copy
    }

    static func redact(_ view: JSONValue) -> JSONValue {
        guard case .object(var members) = view, case .object(var flag) = members["flag"],
            case .object(let variants) = flag["variants"]
        else { return view }
        flag["variants"] = .object(variants.mapValues { _ in placeholder })
        members["flag"] = .object(flag)
        return .object(members)
    }
}
