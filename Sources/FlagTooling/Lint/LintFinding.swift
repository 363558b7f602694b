import FeatureFlags

/// One problem found by ``ManifestLinter``.
public struct LintFinding: Sendable, Hashable {
    /// Whether the finding fails the lint.
    public enum Severity: String, Sendable, Hashable {
        /// Fails the lint (exit status 1).
        case error
        /// Reported, but the lint passes.
        case warning
    }

    /// Whether the finding fails the lint.
    public let severity: Severity
    /// A stable identifier of the rule, such as `removal-due`, for CI filters.
    public let rule: String
    /// The flag concerned, if any.
    public let key: String?
    /// The manifest line, when known.
    public let line: Int?
    /// What is wrong and how to fix it.
    public let message: String

    /// A finding of `rule` about the flag `key` (at `line`, when known).
    public init(_ severity: Severity, rule: String, key: String?, line: Int?, message: String) {
        self.severity = severity
        self.rule = rule
        self.key = key
        self.line = line
        self.message = message
    }

    /// The finding as a JSON object, for `--format json`.
    public var json: FlagValue {
        var object: [String: FlagValue] = [
            "severity": .string(severity.rawValue), "rule": .string(rule), "message": .string(message),
        ]
        if let key { object["key"] = .string(key) }
        if let line { object["line"] = .int(line) }
        return .object(object)
    }
}
