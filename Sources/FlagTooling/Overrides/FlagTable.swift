import FeatureFlags

/// Renders flag rows for a terminal or for scripts.
public enum FlagTable {
    /// A fixed-width table; `*` marks overridden flags.
    ///
    /// ```text
    ///   KEY                 TYPE     VALUE  LAYER     PHASE
    /// * chat_view_redesign  boolean  true   override  2
    /// ```
    public static func text(_ rows: [FlagRow]) -> String {
        guard !rows.isEmpty else { return "No flags match.\n" }
        let header = ["KEY", "TYPE", "VALUE", "LAYER", "PHASE"]
        let cells = rows.map { row in
            [row.definition.key, row.definition.type.rawValue, truncated(row.shownValue), row.details.layer.name,
             row.definition.phase.map(String.init) ?? "-"]
        }
        let widths = header.indices.map { column in
            ([header[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ mark: String, _ values: [String]) -> String {
            let padded = values.enumerated().map { index, value in
                index == values.count - 1 ? value : value + String(repeating: " ", count: widths[index] - value.count)
            }
            return mark + " " + padded.joined(separator: "  ")
        }
        var output = line(" ", header) + "\n"
        for (row, values) in zip(rows, cells) {
            output += line(row.isOverridden ? "*" : " ", values) + "\n"
        }
        let overridden = rows.filter(\.isOverridden).count
        output += "\(rows.count) flag\(rows.count == 1 ? "" : "s"), \(overridden) overridden (*)\n"
        return output
    }

    /// A JSON array with one object per line.
    public static func json(_ rows: [FlagRow]) -> String {
        guard !rows.isEmpty else { return "[]\n" }
        return "[\n" + rows.map { "  " + $0.json.jsonString }.joined(separator: ",\n") + "\n]\n"
    }

    /// One flag explained: value, winning layer and what every layer said.
    public static func details(_ row: FlagRow) -> String {
        let definition = row.definition
        var output = "\(definition.key) = \(row.shownValue)\n"
        output += "  \(definition.displayName)"
        if !definition.description.isEmpty { output += ": \(definition.description)" }
        output += "\n"
        var facts = ["type \(definition.type)"]
        if let phase = definition.phase { facts.append("phase \(phase)") }
        if let owner = definition.owner { facts.append("owner \(owner)") }
        if let target = definition.removalTarget { facts.append("remove by \(target)") }
        if definition.isUserTogglable { facts.append("user-togglable") }
        output += "  " + facts.joined(separator: ", ") + "\n"
        output += "  winning layer: \(row.details.layer) (\(row.details.reason))\(row.isOverridden ? ", overridden" : "")\n"
        if let message = row.details.message { output += "  note: \(message)\n" }
        for report in row.details.layers {
            output += "    \(report)\n"
        }
        return output
    }

    private static func truncated(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(39)) + "…" : text
    }
}
