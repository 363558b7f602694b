import FeatureFlags
import FlagManifest

/// Checks a manifest's flags against their lifecycle and the registry's rules.
///
/// Errors: a removal target at or below the app version (`removal-due`), an unparsable removal
/// target (`invalid-removal-target`), a key declared twice (`duplicate-key`), an unknown
/// dependency (`unknown-dependency`), a dependency cycle (`dependency-cycle`), a flag that both
/// requires and conflicts with another (`requires-and-conflicts`) and other invalid relations
/// (`invalid-relation`). The registry checks are ``FlagRegistry``'s own.
///
/// Warnings: no owner (`missing-owner`), no description (`missing-description`), no removal
/// target (`missing-removal-target`), a key that is not lower snake_case with optional dotted
/// namespaces (`key-naming`).
public struct ManifestLinter: Sendable {
    /// The version of the app being built or released.
    public var appVersion: AppVersion

    /// A linter for the app at `appVersion`.
    public init(appVersion: AppVersion) {
        self.appVersion = appVersion
    }

    /// The findings, in manifest order (flag by flag).
    public func lint(_ manifest: Manifest) -> [LintFinding] {
        var findings: [LintFinding] = []
        let lines = Dictionary(manifest.flags.map { ($0.key, $0.line) }, uniquingKeysWith: { first, _ in first })

        for duplicate in manifest.duplicateKeys {
            findings.append(
                LintFinding(
                    .error, rule: "duplicate-key", key: duplicate.key, line: duplicate.lines.dropFirst().first,
                    message:
                        "'\(duplicate.key)' is declared \(duplicate.lines.count) times (lines \(duplicate.lines.map(String.init).joined(separator: ", "))); JSON readers keep only one. Remove or rename the duplicates."
                ))
        }

        for flag in manifest.flags {
            let definition = flag.definition
            let key = definition.key
            if let target = definition.removalTarget {
                if let version = AppVersion(target) {
                    if version <= appVersion {
                        findings.append(
                            LintFinding(
                                .error, rule: "removal-due", key: key, line: flag.line,
                                message:
                                    "'\(key)' was due for removal in \(target) and the app is at \(appVersion). Remove it (flags remove \(key) --keep on|off) or move its removal target."
                            ))
                    }
                } else {
                    findings.append(
                        LintFinding(
                            .error, rule: "invalid-removal-target", key: key, line: flag.line,
                            message: "'\(key)' has the removal target \"\(target)\", which is not a version X.Y or X.Y.Z."))
                }
            } else {
                findings.append(
                    LintFinding(
                        .warning, rule: "missing-removal-target", key: key, line: flag.line,
                        message: "'\(key)' has no removal target. Add metadata \"removalTarget\" so it does not live forever."))
            }
            if (definition.owner ?? "").isEmpty {
                findings.append(
                    LintFinding(
                        .warning, rule: "missing-owner", key: key, line: flag.line,
                        message: "'\(key)' has no owner. Add metadata \"owner\" naming the team responsible for it."))
            }
            if definition.description.isEmpty {
                findings.append(
                    LintFinding(
                        .warning, rule: "missing-description", key: key, line: flag.line,
                        message: "'\(key)' has no description. Add metadata \"description\" saying what it changes."))
            }
            if !Self.followsNamingConvention(key) {
                findings.append(
                    LintFinding(
                        .warning, rule: "key-naming", key: key, line: flag.line,
                        message:
                            "'\(key)' does not follow the naming convention: lower snake_case words, with dots between namespaces (chat.page_size)."
                    ))
            }
        }

        findings += registryFindings(manifest.definitions, lines: lines)
        return findings.enumerated().sorted { left, right in
            let l = left.element.line ?? Int.max, r = right.element.line ?? Int.max
            return l != r ? l < r : left.offset < right.offset
        }.map(\.element)
    }

    /// Runs the registry's validation repeatedly, removing the offending relation after each
    /// error, so that every problem is reported, not only the first.
    private func registryFindings(_ definitions: [FlagDefinition], lines: [String: Int?]) -> [LintFinding] {
        var definitions = definitions
        var findings: [LintFinding] = []
        for _ in 0...(definitions.count * 4 + 8) {
            do {
                _ = try FlagRegistry(definitions)
                break
            } catch {
                let keys = error.keys
                guard let first = keys.first, let index = definitions.firstIndex(where: { $0.key == first }) else {
                    findings.append(LintFinding(.error, rule: "invalid-registry", key: nil, line: nil, message: error.description))
                    break
                }
                let definition = definitions[index]
                let other = keys.count >= 2 ? keys[1] : first
                let rule: String
                if keys.count >= 3, keys.first == keys.last {
                    rule = "dependency-cycle"
                } else if keys.count == 2, !definitions.contains(where: { $0.key == other }) {
                    rule = "unknown-dependency"
                } else if keys.count == 2, definition.requires.contains(other),
                    definition.conflicts.contains(other)
                        || definitions.first(where: { $0.key == other })?.conflicts.contains(first) == true
                {
                    rule = "requires-and-conflicts"
                } else {
                    rule = "invalid-relation"
                }
                findings.append(LintFinding(.error, rule: rule, key: first, line: lines[first] ?? nil, message: error.description))
                var repaired = definition
                if rule == "requires-and-conflicts" {
                    repaired.conflicts.removeAll { $0 == other }
                    if let otherIndex = definitions.firstIndex(where: { $0.key == other }) {
                        definitions[otherIndex].conflicts.removeAll { $0 == first }
                    }
                } else {
                    repaired.requires.removeAll { $0 == other }
                    repaired.conflicts.removeAll { $0 == other }
                }
                if repaired.requires == definition.requires, repaired.conflicts == definition.conflicts,
                    rule != "requires-and-conflicts"
                {
                    definitions.remove(at: index)
                } else {
                    definitions[index] = repaired
                }
            }
        }
        return findings
    }

    /// Lower snake_case words, with dots between namespaces: `chat_view_redesign`, `chat.page_size`.
    public static func followsNamingConvention(_ key: String) -> Bool {
        let segments = key.split(separator: ".", omittingEmptySubsequences: false)
        return segments.allSatisfy { segment in
            let words = segment.split(separator: "_", omittingEmptySubsequences: false)
            guard let first = words.first?.first, first.isASCII, first.isLowercase else { return false }
            return words.allSatisfy { word in
                !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
            }
        }
    }
}
