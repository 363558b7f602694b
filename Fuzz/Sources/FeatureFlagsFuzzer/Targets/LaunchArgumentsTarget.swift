import FeatureFlags
import Foundation

/// `-ff.<key> <value>` launch arguments, parsed against ``FuzzFlag/registry`` and given to a
/// manager. The input is split into arguments at NUL bytes and newlines.
///
/// Invariants:
/// - every override names a flag of the registry and has its type;
/// - without a `-ff.` argument there are neither overrides nor problems;
/// - a problem about a sensitive flag never quotes the value it was given;
/// - an override, written back as argument text (`-ff.key=text` and `-ff.key text`), parses to
///   the same value;
/// - a manager configured with the arguments has them as its overrides (in configurations that
///   permit overrides), and its snapshot keeps every dependency and conflict; this holds for
///   each build configuration in turn on one manager (reconfiguring keeps nothing of the last).
enum LaunchArgumentsTarget {
    /// Whether an argument starts with `-ff.`, by Unicode scalars as the parser reads it (a
    /// combining mark after the `.` must not hide the prefix).
    static func isFlagArgument(_ argument: String) -> Bool {
        argument.unicodeScalars.starts(with: LaunchArgumentOverrides.prefix.unicodeScalars)
    }

    static func run(_ data: Data) {
        let arguments = String(decoding: data, as: UTF8.self)
            .split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\0" || $0 == "\n" })
            .map(String.init)
        let registry = FuzzFlag.registry
        let (overrides, problems) = LaunchArgumentOverrides.parse(arguments, registry: registry)

        if !arguments.contains(where: isFlagArgument) {
            Invariant.require(overrides.isEmpty && problems.isEmpty, "arguments without '-ff.' gave overrides or problems")
        }
        // Known (Findings/launch-sensitive-value-in-problem): problems quote the value as given.
        checkRedaction(arguments, problems: problems, registry: registry)

        for (key, value) in overrides {
            guard let definition = registry.definition(forKey: key) else {
                Invariant.fail("the launch arguments gave an override for '\(key)', which is not in the registry")
            }
            Invariant.require(
                value.conforms(to: definition.type), "the launch arguments gave a value of the wrong type for '\(key)'")
            let text = argumentText(value)
            let shown = definition.isSensitive ? "<REDACTED>" : text
            guard let reparsed = LaunchArgumentOverrides.value(from: text, as: definition.type) else {
                Invariant.fail("the override of '\(key)', written back as '\(shown)', is not a valid \(definition.type)")
            }
            Invariant.require(
                reparsed.isSameJSON(as: value),
                "the override of '\(key)', written back as '\(shown)', parses to a different value")
            // Findings/launch-value-starting-with-combining-mark: a value starting with a
            // combining mark must still split at the `=`.
            let joined = LaunchArgumentOverrides.parse(["-ff.\(key)=\(text)"], registry: registry).overrides[key]
            Invariant.require(
                joined.map(value.isSameJSON(as:)) ?? false, "'-ff.\(key)=\(shown)' does not give the same override")
            if !isFlagArgument(text) {
                let separate = LaunchArgumentOverrides.parse(["-ff.\(key)", text], registry: registry).overrides[key]
                Invariant.require(
                    separate.map(value.isSameJSON(as:)) ?? false, "'-ff.\(key) \(shown)' does not give the same override")
            }
        }

        // One manager per input, configured for each build configuration in turn: creating a
        // manager builds the registry from the enum, which was half of this target's time when
        // it happened four times per input.
        let manager = FeatureFlagManager<FuzzFlag>(logger: FuzzFlag.logger)
        for configuration in BuildConfiguration.allCases {
            manager.configure(FlagSetup(buildConfiguration: configuration, launchArguments: arguments, logger: FuzzFlag.logger))
            manager.snapshot.checkRelations(registry: registry, after: "launch arguments in \(configuration)")
            if BuildConfiguration.overridableByDefault.contains(configuration) {
                let applied = manager.engine.overrides
                Invariant.require(
                    applied.count == overrides.count
                        && applied.allSatisfy { key, value in overrides[key].map(value.isSameJSON(as:)) ?? false },
                    "the manager's overrides in \(configuration) differ from the parsed launch arguments")
            }
        }
    }

    /// The text of a value as it would be passed on the command line.
    static func argumentText(_ value: FlagValue) -> String {
        switch value {
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .string(let text): text
        default: value.jsonString
        }
    }

    /// Every problem the parser reports for `key` with values whose text never appears in a
    /// message (each reaching another refusal: not the type, not decodable, out of range), the
    /// flag's name removed: the wording a problem has whatever the value.
    static func messageWording(forKey key: String, registry: FlagRegistry) -> String {
        ["\u{1}", "{}", "[]", "1e400", "-1", "\"\u{1}\""]
            .flatMap { LaunchArgumentOverrides.parse(["\(LaunchArgumentOverrides.prefix)\(key)", $0], registry: registry).problems }
            .map { withoutName(key, in: $0) }
            .joined(separator: "\n")
    }

    /// `problem` without the flag's own name, which may contain the value's text (`-ff.layout ff.layout`).
    static func withoutName(_ key: String, in problem: String) -> String {
        problem.replacingOccurrences(of: "\(LaunchArgumentOverrides.prefix)\(key)", with: "")
            .replacingOccurrences(of: "'\(key)'", with: "")
    }

    /// A problem about a sensitive flag must not repeat the value given for it.
    static func checkRedaction(_ arguments: [String], problems: [String], registry: FlagRegistry) {
        for (position, argument) in arguments.enumerated() where isFlagArgument(argument) {
            // Split as the parser does, by Unicode scalars.
            let scalars = argument.unicodeScalars.dropFirst(LaunchArgumentOverrides.prefix.unicodeScalars.count)
            var key = String(String.UnicodeScalarView(scalars))
            var value: String?
            if let equals = scalars.firstIndex(of: "=") {
                value = String(String.UnicodeScalarView(scalars[scalars.index(after: equals)...]))
                key = String(String.UnicodeScalarView(scalars[..<equals]))
            } else if position + 1 < arguments.count, !isFlagArgument(arguments[position + 1]) {
                // As the parser does: a following flag argument is not this one's value.
                value = arguments[position + 1]
            }
            guard let value, value.count >= 4, registry.definition(forKey: key)?.isSensitive == true else { continue }
            // A value that is part of the messages' own wording (`valid`, `ayout` of `Layout`)
            // proves nothing when a problem contains it.
            guard !messageWording(forKey: key, registry: registry).contains(value) else { continue }
            // Problems about this flag name it (`for 'key'`, `does not fit 'key'`) or quote the
            // argument whole (`'-ff.key' has no value`); a problem about an unknown flag whose
            // argument merely starts with `-ff.key ` quotes its own text, which is no leak.
            for problem in problems where problem.contains("'\(key)'") || problem.contains("'\(argument)'") {
                Invariant.require(
                    !withoutName(key, in: problem).contains(value), "a launch-argument problem about the sensitive flag '\(key)' quotes its value")
            }
        }
    }
}
