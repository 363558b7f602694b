import FlagEvaluation
import Foundation

/// Checks a whole proposed state before it is written: every write is validated as the state it
/// would produce, so a bad write is refused whole and the stored state stays as it was.
public enum StateValidator {
    /// Longest flag, segment or environment key.
    public static let maximumKeyLength = 128

    /// Every problem of `state`, in a stable order; empty when the state may be stored.
    public static func problems(in state: ServerState) -> [ValidationError] {
        var problems: [ValidationError] = []
        for key in state.environments.keys.sorted() where !isValidKey(key) {
            problems.append(ValidationError(key: key, field: "key", problem: keyRule))
        }
        for flag in state.flags.values.sorted(by: { $0.key < $1.key }) {
            problems += definitionProblems(flag, in: state)
        }
        problems += cycleProblems(in: state)
        for environment in state.environments.values.sorted(by: { $0.key < $1.key }) {
            problems += environmentProblems(environment, in: state)
        }
        return problems
    }

    /// The metadata keys the manifest encoding uses for registry fields; flagd metadata of a
    /// flag (``FlagMetadata/custom``) may not use them.
    static let registryMetadataKeys: Set<String> = [
        "key", "type", "displayName", "description", "owner", "phase", "removalTarget", "requires", "conflicts", "sensitive",
        FlagdImporter.codeDefaultKey,
    ]

    static let keyRule = "must be 1–\(maximumKeyLength) letters, digits, '.', '_' or '-'"

    static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maximumKeyLength
            && key.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    static func definitionProblems(_ flag: FlagRecord, in state: ServerState) -> [ValidationError] {
        var problems: [ValidationError] = []
        func report(_ field: String, _ problem: String) {
            problems.append(ValidationError(key: flag.key, field: field, problem: problem))
        }
        if !isValidKey(flag.key) { report("key", keyRule) }
        if flag.variants.isEmpty { report("variants", "needs at least one variant") }
        for (name, value) in flag.variants.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty { report("variants", "variant names must not be empty") }
            if !flag.type.accepts(value) {
                report("variants.\(name)", "is \(value.typeName), but the flag's type is \(flag.type.rawValue)")
            }
        }
        if let codeDefault = flag.defaultVariant, flag.variants[codeDefault] == nil {
            report(
                "defaultVariant",
                "the code default \"\(codeDefault)\" is not one of the variants (\(flag.variants.keys.sorted().joined(separator: ", ")))")
        }
        for (field, keys) in [("metadata.requires", flag.metadata.requires), ("metadata.conflicts", flag.metadata.conflicts)] {
            for other in keys {
                if other == flag.key {
                    report(field, "names the flag itself")
                } else if state.flags[other] == nil {
                    report(field, "names \"\(other)\", which is not a flag")
                }
            }
        }
        if let phase = flag.metadata.phase, phase < 0 { report("metadata.phase", "must be 0 or more, got \(phase)") }
        for (name, value) in flag.metadata.custom.sorted(by: { $0.key < $1.key }) {
            if name.isEmpty {
                report("metadata.custom", "metadata keys must not be empty")
            } else if registryMetadataKeys.contains(name) {
                report("metadata.custom.\(name)", "is a registry field; set it as metadata.\(name) instead")
            }
            switch value {
            case .string, .int, .double, .bool: break
            default: report("metadata.custom.\(name)", "must be a string, number or boolean (flagd metadata), got \(value.typeName)")
            }
        }
        return problems
    }

    /// A `requires` cycle (`a` requires `b` requires `a`) can never be satisfied.
    static func cycleProblems(in state: ServerState) -> [ValidationError] {
        var problems: [ValidationError] = []
        var finished: Set<String> = []
        var reported: Set<String> = []
        func visit(_ key: String, path: [String]) {
            if let start = path.firstIndex(of: key) {
                let cycle = path[start...] + [key]
                if reported.insert(key).inserted {
                    problems.append(ValidationError(
                        key: key, field: "metadata.requires",
                        problem: "forms a cycle: \(cycle.joined(separator: " → "))"))
                }
                return
            }
            guard !finished.contains(key), let flag = state.flags[key] else { return }
            for next in flag.metadata.requires.sorted() { visit(next, path: path + [key]) }
            finished.insert(key)
        }
        for key in state.flags.keys.sorted() { visit(key, path: []) }
        return problems
    }

    static func environmentProblems(_ environment: EnvironmentState, in state: ServerState) -> [ValidationError] {
        var problems: [ValidationError] = []
        for (key, rule) in environment.segments.sorted(by: { $0.key < $1.key }) {
            if !isValidKey(key) {
                problems.append(ValidationError(environment: environment.key, key: key, field: "key", problem: keyRule))
            }
            guard case .object = rule else {
                problems.append(ValidationError(
                    environment: environment.key, key: key, field: "rule", problem: "must be a rule object, got \(rule.typeName)"))
                continue
            }
            do {
                _ = try JSONLogicRule(rule, evaluators: environment.segments)
            } catch {
                problems.append(ValidationError(environment: environment.key, key: key, field: "rule", problem: error.description))
            }
        }
        for (key, settings) in environment.settings.sorted(by: { $0.key < $1.key }) {
            // No default variant is allowed, as in flagd: the caller's code default is served then.
            guard let flag = state.flags[key], let defaultVariant = settings.defaultVariant else { continue }
            if flag.variants[defaultVariant] == nil {
                problems.append(ValidationError(
                    environment: environment.key, key: key, field: "defaultVariant",
                    problem: "\"\(defaultVariant)\" is not one of the variants (\(flag.variants.keys.sorted().joined(separator: ", ")))"))
            }
        }
        // The rules and segments compile with FlagEvaluation's own loader, exactly as served.
        guard let document = state.flagdDocument(environment: environment.key) else { return problems }
        let source = FlagSource(name: "environment \"\(environment.key)\"", data: Data(document.serialized().utf8))
        let (_, errors) = FlagDefinitions.load([source])
        for error in errors where error.effect != .nonConforming {
            problems.append(ValidationError(
                environment: environment.key, key: error.flagKey,
                field: error.problem.hasPrefix("targeting") ? "targeting" : (error.flagKey == nil ? "segments" : "definition"),
                problem: error.problem))
        }
        return problems
    }
}
