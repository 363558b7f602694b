import FeatureFlags
import FlagServerClient

extension ServerDiff {
    /// The text that stands for a value of a sensitive flag.
    public static let redacted = FlagServerClient.redacted

    /// The differences for people: one line per flag, indented lines per field.
    ///
    /// ```text
    /// + new_checkout (in code, not on the server)
    /// - old_banner (on the server, not in code)
    /// ~ page_size
    ///     owner: code "search", server "growth"
    /// ! retry_limit: type integer in code, boolean on the server
    /// ```
    ///
    /// Values of sensitive flags' variants print as `<REDACTED>`.
    public func text() -> String {
        guard !isEmpty else { return "No differences.\n" }
        var output = ""
        for mismatch in typeMismatches {
            output += "! \(mismatch.key): type \(mismatch.code) in code, \(mismatch.server) on the server\n"
        }
        for key in added { output += "+ \(key) (in code, not on the server)\n" }
        for key in removed { output += "- \(key) (on the server, not in code)\n" }
        for flag in changed {
            output += "~ \(flag.key)\n"
            for change in flag.changes {
                let (code, server) = shown(change, sensitive: flag.isSensitive)
                output += "    \(change.field): code \(code), server \(server)\n"
            }
        }
        output += "\(summary)\n"
        return output
    }

    /// A one-line count: "1 added, 2 changed, 1 type mismatch, 0 removed."
    public var summary: String {
        let mismatches = typeMismatches.count == 1 ? "1 type mismatch" : "\(typeMismatches.count) type mismatches"
        return "\(added.count) added, \(changed.count) changed, \(mismatches), \(removed.count) only on the server."
    }

    /// The differences as a JSON object (keys sorted):
    /// `{"added": [...], "changed": [{"key", "changes": [{"field", "code", "server"}]}], "equal": false,
    /// "removed": [...], "typeMismatches": [{"key", "code", "server"}]}`. Field values are JSON
    /// text; values of sensitive flags' variants are `"<REDACTED>"`.
    public var json: FlagValue {
        .object([
            "equal": .bool(isEmpty),
            "added": .array(added.map(FlagValue.string)),
            "removed": .array(removed.map(FlagValue.string)),
            "typeMismatches": .array(typeMismatches.map {
                ["key": .string($0.key), "code": .string($0.code.rawValue), "server": .string($0.server.rawValue)]
            }),
            "changed": .array(changed.map { flag in
                [
                    "key": .string(flag.key),
                    "changes": .array(flag.changes.map { change in
                        let (code, server) = shown(change, sensitive: flag.isSensitive)
                        return ["field": .string(change.field), "code": .string(code), "server": .string(server)]
                    }),
                ]
            }),
        ])
    }

    /// A change's two sides as printed: values of a sensitive flag's variants are redacted.
    private func shown(_ change: FieldChange, sensitive: Bool) -> (String, String) {
        guard sensitive, change.field == "variants" else { return (change.code, change.server) }
        return (Self.redacted, Self.redacted)
    }
}
