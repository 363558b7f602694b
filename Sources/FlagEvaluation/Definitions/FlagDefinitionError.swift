/// A problem found while loading flag definitions, naming the source, the flag and the problem.
///
/// ```
/// flags.json: flag "checkout": "variants" mixes boolean and string values; all variants of a flag must have one type (flag skipped)
/// ```
public struct FlagDefinitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What loading did about the problem.
    public enum Effect: String, Sendable, Hashable, CaseIterable {
        /// Nothing in the source was loaded (not JSON, no `flags`, ...).
        case sourceSkipped
        /// The flag was not loaded.
        case flagSkipped
        /// The flag was loaded, but every evaluation of it returns an error (a targeting rule that
        /// cannot compile gives `PARSE_ERROR`; a default variant that does not exist, `GENERAL`).
        case flagFailsEvaluation
        /// The offending value was dropped and everything else loaded.
        case valueIgnored
        /// Loaded as written, but it does not conform to the flagd schema; it evaluates with
        /// JSON Logic's lenient semantics (flagd's operators return `null` on bad input).
        case nonConforming
    }

    /// The source name the caller gave (usually a file name).
    public var source: String
    /// The flag concerned, or `nil` for a problem with the source as a whole.
    public var flagKey: String?
    /// The problem, in one sentence.
    public var problem: String
    /// What loading did about it.
    public var effect: Effect

    /// A problem with `source` (or its flag `flagKey`) and what loading did about it.
    public init(source: String, flagKey: String?, problem: String, effect: Effect) {
        self.source = source
        self.flagKey = flagKey
        self.problem = problem
        self.effect = effect
    }

    /// `source: flag "key": problem (what loading did)`, as the type's example shows.
    public var description: String {
        let place = flagKey.map { "\(source): flag \"\($0)\"" } ?? source
        let consequence: String = switch effect {
        case .sourceSkipped: "source skipped"
        case .flagSkipped: "flag skipped"
        case .flagFailsEvaluation: "flag loaded; its evaluations return an error"
        case .valueIgnored: "value ignored"
        case .nonConforming: "loaded, but does not conform to the flagd schema"
        }
        return "\(place): \(problem) (\(consequence))"
    }
}

/// Every problem found by ``FlagDefinitions/loadStrictly(_:)``.
public struct FlagDefinitionLoadFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every problem, in the order found.
    public var errors: [FlagDefinitionError]

    /// One problem per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
