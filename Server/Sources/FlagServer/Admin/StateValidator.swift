import FlagEvaluation
import FlagServerModel
import Foundation

/// Checks a whole proposed state before it is written: every write is validated as the state it
/// would produce, so a bad write is refused whole and the stored state stays as it was.
public enum StateValidator {
    /// Longest flag, segment or environment key.
    public static let maximumKeyLength = KeyRule.maximumLength

    /// Which targeting rules returning a variant their flag lacks a validation counts as problems.
    ///
    /// Such a rule (`{"if": [cond, "onn", "off"]}` on a flag without `onn`) fails the evaluations
    /// that reach the name with `GENERAL`. flagd loads a file holding one and fails only those
    /// evaluations, and flagd's own test files have such names in branches no context reaches, so
    /// an import accepts them with a warning (``missingVariantWarnings(in:changedBy:environment:)``), while an
    /// edit of settings or segments may not add one.
    public enum MissingVariants: Sendable {
        /// Every one is a problem.
        case all
        /// Only those the state before the write (given) did not have, by environment, flag and
        /// name: an edit may not add one, but one an import accepted does not block the flag's
        /// later edits (turning it on, changing its default variant).
        case addedSince(ServerState)
        /// None in the environment an import writes (it warns about them instead); in the other
        /// environments, where the import changes only definitions, those the state before it
        /// (given) did not have, as for an edit.
        case importedInto(String, elsewhereAddedSince: ServerState)
    }

    /// Every problem of `state`, in a stable order; empty when the state may be stored.
    public static func problems(in state: ServerState) -> [ValidationError] {
        problems(in: state, missingVariants: .all)
    }

    /// Every problem of `state`, counting the rules returning a variant their flag lacks as
    /// `missingVariants` says; in a stable order.
    public static func problems(in state: ServerState, missingVariants: MissingVariants) -> [ValidationError] {
        var problems: [ValidationError] = []
        for key in state.environments.keys.sorted() {
            if let problem = keyProblem(key) { problems.append(ValidationError(key: key, field: "key", problem: problem)) }
        }
        for flag in state.flags.values.sorted(by: { $0.key < $1.key }) {
            problems += definitionProblems(flag, in: state)
        }
        problems += cycleProblems(in: state)
        for environment in state.environments.values.sorted(by: { $0.key < $1.key }) {
            problems += environmentProblems(environment, in: state, flags: nil, checkingSegments: true, missingVariants: missingVariants)
        }
        return problems
    }

    /// The problems a write that touched `delta` can have brought into `state` (the state after
    /// the write), when the state before it was valid: the same problems, in the same order, as
    /// ``problems(in:)`` finds, at a cost proportional to the touched subjects and what depends
    /// on them rather than to the environment.
    ///
    /// What it checks: the keys of created environments; the definitions of put flags and of
    /// flags naming a deleted or archived flag in `requires` or `conflicts`; `requires` cycles when a touched
    /// flag requires anything; in each environment, every segment when one was touched, and the
    /// settings of touched flags and of flags whose targeting uses a touched environment's
    /// segments, compiled as served.
    ///
    /// `missingVariants` says which rules returning a variant their flag lacks are problems: every
    /// one (the default), only those the write adds, or, for an import, none in the environment it
    /// writes (it warns instead) and those it adds elsewhere.
    public static func problems(
        in state: ServerState, changedBy delta: StateDelta, missingVariants: MissingVariants = .all
    ) -> [ValidationError] {
        var problems: [ValidationError] = []
        for key in delta.environments.sorted() where state.environments[key] != nil {
            if let problem = keyProblem(key) { problems.append(ValidationError(key: key, field: "key", problem: problem)) }
        }
        var definitions = delta.flags.filter { state.flags[$0] != nil }
        // Only a deletion or an archiving can break another flag's reference.
        let gone = delta.flags.filter { state.flags[$0] == nil || state.flags[$0]!.archived }
        if !gone.isEmpty {
            for flag in state.flags.values
            where !flag.metadata.requires.isEmpty || !flag.metadata.conflicts.isEmpty {
                if flag.metadata.requires.contains(where: gone.contains) || flag.metadata.conflicts.contains(where: gone.contains) {
                    definitions.insert(flag.key)
                }
            }
        }
        for key in definitions.sorted() {
            problems += definitionProblems(state.flags[key]!, in: state)
        }
        // A new cycle goes through a touched flag that requires something.
        if delta.flags.contains(where: { state.flags[$0]?.metadata.requires.isEmpty == false }) {
            problems += cycleProblems(in: state)
        }
        for (environment, flags, segmentsTouched) in touchedSettings(in: state, changedBy: delta) {
            problems += environmentProblems(
                environment, in: state, flags: flags, checkingSegments: segmentsTouched, missingVariants: missingVariants)
        }
        return problems
    }

    /// The rules of the settings a write that touched `delta` checks in `environment` (see
    /// ``problems(in:changedBy:missingVariants:)``) that return a variant their flag lacks, each
    /// naming the environment, the flag, the name and where the rule returns it: what an import
    /// into `environment` accepts and answers as warnings.
    public static func missingVariantWarnings(
        in state: ServerState, changedBy delta: StateDelta, environment key: String
    ) -> [ValidationError] {
        var warnings: [ValidationError] = []
        for (environment, flags, _) in touchedSettings(in: state, changedBy: delta) where environment.key == key {
            for key in flags.sorted() {
                guard let flag = state.flags[key], let targeting = environment.settings[key]?.targeting else { continue }
                warnings += missingVariantResults(of: targeting, flag: flag, in: environment).map {
                    missingVariantError($0, flag: flag, in: environment, consequence: true)
                }
            }
        }
        return warnings
    }

    /// Per environment `delta` touched, the flags whose settings a write checks there (those it
    /// touched, and those whose targeting uses a segment when it touched one) and whether it
    /// touched a segment.
    static func touchedSettings(
        in state: ServerState, changedBy delta: StateDelta
    ) -> [(environment: EnvironmentState, flags: Set<String>, segmentsTouched: Bool)] {
        var touched: [(environment: EnvironmentState, flags: Set<String>, segmentsTouched: Bool)] = []
        let environments = Set(delta.settings.keys).union(delta.segments.keys)
        for key in environments.sorted() {
            guard let environment = state.environments[key] else { continue }
            var flags = (delta.settings[key] ?? []).filter { environment.settings[$0] != nil && state.flags[$0] != nil }
            let segmentsTouched = !(delta.segments[key] ?? []).isEmpty
            if segmentsTouched {
                for (flag, settings) in environment.settings where settings.targeting.map(usesSegments) == true {
                    flags.insert(flag)
                }
            }
            touched.append((environment, flags, segmentsTouched))
        }
        return touched
    }

    /// Whether `rule` refers to a segment (`{"$ref": …}`) anywhere.
    static func usesSegments(_ rule: JSONValue) -> Bool {
        switch rule {
        case .object(let members): members["$ref"] != nil || members.values.contains(where: usesSegments)
        case .array(let items): items.contains(where: usesSegments)
        default: false
        }
    }

    /// The metadata keys the manifest encoding uses for registry fields; flagd metadata of a
    /// flag (``FlagRecordMetadata/custom``) may not use them.
    static let registryMetadataKeys: Set<String> = [
        "key", "type", "displayName", "description", "owner", "phase", "removalTarget", "requires", "conflicts", "sensitive",
        FlagdImporter.codeDefaultKey,
    ]

    static let keyRule = "must be 1–\(maximumKeyLength) letters, digits, '.', '_' or '-'"

    /// Longest variant name or flagd metadata key, in Unicode scalars.
    public static let maximumNameLength = 128

    static let nameRule =
        "names are 1–\(maximumNameLength) characters, none of them a control character (U+0000–U+001F, U+007F–U+009F), "
        + "a line or paragraph separator (U+2028, U+2029) or a bidirectional formatting character "
        + "(U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)"

    /// Why `name` cannot be a variant name or a metadata key, naming the first offending character
    /// and its position (1 is the first character), or `nil` when it may.
    ///
    /// Such characters are invisible or reorder the text around them: a name with one looks like
    /// another name in the console, in logs and in code review.
    static func nameProblem(_ name: String) -> String? {
        let scalars = name.unicodeScalars
        if scalars.isEmpty { return "is empty; \(nameRule)" }
        for (offset, scalar) in scalars.enumerated() {
            guard let kind = refusedKind(scalar) else { continue }
            return "has \(codePoint(scalar)) (\(kind)) at position \(offset + 1); \(nameRule)"
        }
        if scalars.count > maximumNameLength { return "is \(scalars.count) characters long; \(nameRule)" }
        return nil
    }

    /// `U+0000`: the code point as Unicode writes it.
    static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// What kind of character `scalar` is when names may not contain it.
    static func refusedKind(_ scalar: Unicode.Scalar) -> String? {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: "a control character"
        case 0x2028, 0x2029: "a line or paragraph separator"
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: "a bidirectional formatting character"
        default: nil
        }
    }

    /// `name` with each character ``nameProblem(_:)`` refuses written as `\u{202E}`, so that a
    /// message quoting it shows it as it is.
    static func escaped(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            if refusedKind(scalar) == nil {
                text.unicodeScalars.append(scalar)
            } else {
                text += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return text
    }

    /// Why `key` cannot be a flag, segment or environment key (naming the first offending
    /// character and its position), or `nil` when it may.
    static func keyProblem(_ key: String) -> String? {
        if key.isEmpty { return "is empty; keys \(keyRule)" }
        for (offset, scalar) in key.unicodeScalars.enumerated() where !(scalar.isASCII && isValidKey(String(scalar))) {
            return "has \(codePoint(scalar)) at position \(offset + 1); keys \(keyRule)"
        }
        if key.utf8.count > maximumKeyLength { return "is \(key.utf8.count) characters long; keys \(keyRule)" }
        return nil
    }

    static func isValidKey(_ key: String) -> Bool { KeyRule.isValid(key) }

    static func definitionProblems(_ flag: FlagRecord, in state: ServerState) -> [ValidationError] {
        var problems: [ValidationError] = []
        func report(_ field: String, _ problem: String) {
            problems.append(ValidationError(key: flag.key, field: field, problem: problem))
        }
        if let problem = keyProblem(flag.key) { report("key", problem) }
        if flag.variants.isEmpty { report("variants", "needs at least one variant") }
        for (name, value) in flag.variants.sorted(by: { $0.key < $1.key }) {
            if let problem = nameProblem(name) { report("variants", "the variant name \"\(escaped(name))\" \(problem)") }
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
                } else if let named = state.flags[other] {
                    // An archived flag is not served: a served flag may not depend on it.
                    if named.archived, !flag.archived {
                        report(
                            field,
                            "names \"\(other)\", which is archived (not served): take \"\(other)\" out of \"\(flag.key)\"'s \(field) or archive \"\(flag.key)\" too")
                    }
                } else {
                    report(field, "names \"\(other)\", which is not a flag")
                }
            }
        }
        if let phase = flag.metadata.phase, phase < 0 { report("metadata.phase", "must be 0 or more, got \(phase)") }
        for (name, value) in flag.metadata.custom.sorted(by: { $0.key < $1.key }) {
            if let problem = nameProblem(name) {
                report("metadata.custom", "the metadata key \"\(escaped(name))\" \(problem)")
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

    /// Every variant name `targeting` returns as written (through `if` branches, `fractional`
    /// buckets and the segments it uses in result positions) that `flag` does not have, each once:
    /// each would fail every evaluation that reaches it with `GENERAL`.
    static func missingVariantResults(of targeting: JSONValue, flag: FlagRecord, in environment: EnvironmentState) -> [RuleLiteralResult] {
        var results: [RuleLiteralResult] = []
        var reported: Set<RuleLiteralResult> = []
        for result in JSONLogicRule.literalResults(of: targeting, evaluators: environment.segments)
        where flag.variants[result.variant] == nil && reported.insert(result).inserted {
            results.append(result)
        }
        return results
    }

    /// The problem (or, with `consequence`, the warning saying what it does) of a rule of `flag`
    /// returning `result`, a name that is not one of its variants.
    static func missingVariantError(
        _ result: RuleLiteralResult, flag: FlagRecord, in environment: EnvironmentState, consequence: Bool = false
    ) -> ValidationError {
        let variants = flag.variants.keys.sorted().joined(separator: ", ")
        return ValidationError(
            environment: environment.key, key: flag.key, field: "targeting",
            problem: "returns \"\(escaped(result.variant))\" (at \(result.path)), which is not one of the variants (\(variants))"
                + (consequence ? "; an evaluation that reaches it answers GENERAL" : ""))
    }

    /// The problems of `flag`'s `targeting` in `environment` that `missingVariants` counts.
    static func variantProblems(
        of targeting: JSONValue, flag: FlagRecord, in environment: EnvironmentState, missingVariants: MissingVariants
    ) -> [ValidationError] {
        var results = missingVariantResults(of: targeting, flag: flag, in: environment)
        let before: ServerState
        switch missingVariants {
        case .all:
            return results.map { missingVariantError($0, flag: flag, in: environment) }
        case .importedInto(let imported, _) where imported == environment.key:
            return []
        case .addedSince(let state), .importedInto(_, elsewhereAddedSince: let state):
            before = state
        }
        guard !results.isEmpty else { return [] }
        // What the flag's rule returned there before, that its variants then lacked.
        if let environmentBefore = before.environments[environment.key], let flagBefore = before.flags[flag.key],
            let targetingBefore = environmentBefore.settings[flag.key]?.targeting
        {
            let earlier = Set(missingVariantResults(of: targetingBefore, flag: flagBefore, in: environmentBefore).map(\.variant))
            results.removeAll { earlier.contains($0.variant) }
        }
        return results.map { missingVariantError($0, flag: flag, in: environment) }
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

    /// The problems of `environment`'s segments (if `checkingSegments`) and of the settings of
    /// `flags` (every flag when `nil`), its rules compiled as served, the rules returning a
    /// variant their flag lacks counted as `missingVariants` says.
    static func environmentProblems(
        _ environment: EnvironmentState, in state: ServerState, flags: Set<String>?, checkingSegments: Bool,
        missingVariants: MissingVariants
    ) -> [ValidationError] {
        var problems: [ValidationError] = []
        let settings: [(key: String, value: FlagSettings)] =
            if let flags {
                flags.compactMap { key in environment.settings[key].map { (key: key, value: $0) } }.sorted { $0.key < $1.key }
            } else {
                environment.settings.sorted(by: { $0.key < $1.key })
            }
        for (key, rule) in checkingSegments ? environment.segments.sorted(by: { $0.key < $1.key }) : [] {
            if let problem = keyProblem(key) {
                problems.append(ValidationError(environment: environment.key, key: key, field: "key", problem: problem))
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
        for (key, settings) in settings {
            // No default variant is allowed, as in flagd: the caller's code default is served then.
            guard let flag = state.flags[key], let defaultVariant = settings.defaultVariant else { continue }
            if flag.variants[defaultVariant] == nil {
                problems.append(ValidationError(
                    environment: environment.key, key: key, field: "defaultVariant",
                    problem: "\"\(defaultVariant)\" is not one of the variants (\(flag.variants.keys.sorted().joined(separator: ", ")))"))
            }
        }
        for (key, settings) in settings {
            guard let flag = state.flags[key], let targeting = settings.targeting else { continue }
            problems += variantProblems(of: targeting, flag: flag, in: environment, missingVariants: missingVariants)
        }
        // The rules and segments compile with FlagEvaluation's own loader, exactly as served.
        guard let document = state.flagdDocument(environment: environment.key, only: flags, includingArchived: true) else { return problems }
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
