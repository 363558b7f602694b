import FlagEvaluation
import FlagServerModel

/// Hides the values of sensitive flags in audit listings (a flag's entries, and those of its
/// scheduled changes): every variant value prints as `<REDACTED>`.
enum AuditRedaction {
    static let placeholder: JSONValue = "<REDACTED>"

    static func redacted(_ entry: AuditEntry, flags: [String: FlagRecord]) -> AuditEntry {
        let views = [entry.before, entry.after]
        let redact: (JSONValue) -> JSONValue
        switch entry.subject {
        case .flag:
            let sensitive = flags[entry.key]?.metadata.sensitive == true
                || views.contains { $0?["flag"]?["metadata"]?["sensitive"] == true }
            guard sensitive else { return entry }
            redact = { view in replacingVariants(in: view, at: "flag") }
        case .schedule:
            // A scheduled change of a sensitive flag: its definition or patch may hold values.
            let flag = views.lazy.compactMap { $0?["flag"]?.stringValue }.first
            let sensitive = flag.flatMap { flags[$0]?.metadata.sensitive } == true
                || views.contains { $0?["change"]?["definition"]?["metadata"]?["sensitive"] == true }
            guard sensitive else { return entry }
            redact = { view in
                guard case .object(var members) = view, let change = members["change"] else { return view }
                members["change"] = replacingVariants(in: replacingVariants(in: change, at: "definition"), at: "patch")
                return .object(members)
            }
        default:
            return entry
        }
        var copy = entry
        copy.before = entry.before.map(redact)
        copy.after = entry.after.map(redact)
        return copy
    }

    /// `view` with every value of `view[member].variants` replaced by ``placeholder``.
    private static func replacingVariants(in view: JSONValue, at member: String) -> JSONValue {
        guard case .object(var members) = view, case .object(var body) = members[member],
            case .object(let variants) = body["variants"]
        else { return view }
        body["variants"] = .object(variants.mapValues { _ in placeholder })
        members[member] = .object(body)
        return .object(members)
    }
}
