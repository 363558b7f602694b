import FeatureFlags

/// Renders lint findings.
public enum LintReport {
    /// One line per finding, then a summary.
    public static func text(_ findings: [LintFinding], file: String) -> String {
        var output = ""
        for finding in findings {
            output += file
            if let line = finding.line { output += ":\(line)" }
            output += ": \(finding.severity.rawValue): [\(finding.rule)] \(finding.message)\n"
        }
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        output += findings.isEmpty ? "No problems.\n" : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")\n"
        return output
    }

    /// A JSON object with counts and the findings.
    public static func json(_ findings: [LintFinding], file: String) -> String {
        let errors = findings.filter { $0.severity == .error }.count
        var output = "{\n"
        output += "  \"manifest\": \(FlagValue.string(file).jsonString),\n"
        output += "  \"errors\": \(errors),\n"
        output += "  \"warnings\": \(findings.count - errors),\n"
        output += "  \"findings\": ["
        output += findings.isEmpty ? "]\n" : "\n" + findings.map { "    " + $0.json.jsonString }.joined(separator: ",\n") + "\n  ]\n"
        return output + "}\n"
    }
}
