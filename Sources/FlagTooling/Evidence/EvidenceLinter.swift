import FeatureFlags
import FlagManifest

/// Lint findings from a flag server's removal evidence (``ServerEvidence``): a warning for each
/// manifest flag the server finds `unused` (rule `unused`) or `settled` (rule `settled`), saying
/// what to remove it with. Flags the server does not know, and active or unknown ones, pass.
public struct EvidenceLinter: Sendable {
    /// The server's evidence of one environment.
    public var evidence: ServerEvidence

    /// A linter of `evidence`.
    public init(evidence: ServerEvidence) {
        self.evidence = evidence
    }

    /// The findings, in manifest order.
    public func lint(_ manifest: Manifest) -> [LintFinding] {
        manifest.flags.compactMap { flag in
            guard let found = evidence[flag.key] else { return nil }
            let key = flag.key
            switch found.state {
            case .settled:
                return LintFinding(
                    .warning, rule: "settled", key: key, line: flag.line,
                    message: "'\(key)' is \(evidence.sentence(for: found)). Remove it keeping that variant: \(Self.command(key, variant: found.run?.variant, definition: flag.definition)).")
            case .unused:
                return LintFinding(
                    .warning, rule: "unused", key: key, line: flag.line,
                    message: "'\(key)' is \(evidence.sentence(for: found)). Remove it keeping the code default (\(Self.command(key, definition: flag.definition))) once no app version still in use reads it.")
            case .active, .unknown:
                return nil
            }
        }
    }

    /// `flags remove KEY --keep on` for a Boolean flag kept at `variant` (or at its code default
    /// without one); for other flags, what to keep in words.
    static func command(_ key: String, variant: String? = nil, definition: FlagDefinition) -> String {
        guard definition.type == .boolean else {
            return variant.map { "make \"\($0)\"'s value the code" } ?? "keep the code default"
        }
        let keep: String? = switch variant {
        case "on", "true": "on"
        case "off", "false": "off"
        case nil: definition.defaultValue.boolValue.map { $0 ? "on" : "off" }
        default: nil
        }
        return "flags remove \(key) --keep \(keep ?? "on|off")"
    }
}
