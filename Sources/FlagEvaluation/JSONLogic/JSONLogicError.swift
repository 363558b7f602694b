/// A rule that cannot be compiled at all, so it can never be evaluated.
public struct JSONLogicError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case unknownOperator(String)
        case missingEvaluator(String)
        case circularReference([String])
        case invalidReference(String)
        case tooDeep(maximum: Int, through: [String])
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    static func unknownOperator(_ name: String) -> Self { Self(.unknownOperator(name)) }
    static func missingEvaluator(_ name: String) -> Self { Self(.missingEvaluator(name)) }
    static func circularReference(_ chain: [String]) -> Self { Self(.circularReference(chain)) }
    static func invalidReference(_ value: String) -> Self { Self(.invalidReference(value)) }
    static func tooDeep(maximum: Int, through chain: [String]) -> Self { Self(.tooDeep(maximum: maximum, through: chain)) }

    /// ` through "$ref" evaluators "a" -> "b"`, eliding the middle of a long chain.
    private static func describeChain(_ chain: [String]) -> String {
        guard !chain.isEmpty else { return "" }
        let quoted = chain.map { "\"\($0)\"" }
        let shown = quoted.count <= 4 ? quoted : quoted.prefix(2) + ["..."] + quoted.suffix(2)
        return " through \"$ref\" evaluators " + shown.joined(separator: " -> ")
            + (quoted.count > 4 ? " (\(quoted.count) evaluators)" : "")
    }

    /// What cannot be compiled and where, naming the operator or the `$ref` chain.
    public var description: String {
        switch kind {
        case .unknownOperator(let name):
            "unknown operator \"\(name)\"; use a JSON Logic operator or fractional, sem_ver, starts_with, ends_with"
        case .missingEvaluator(let name):
            "\"$ref\": \"\(name)\" refers to an evaluator that is not defined in \"$evaluators\""
        case .circularReference(let chain):
            "\"$ref\" cycle through evaluators " + chain.map { "\"\($0)\"" }.joined(separator: " -> ")
        case .invalidReference(let value):
            "\"$ref\" must be an evaluator name (a string), not \(value)"
        case .tooDeep(let maximum, let chain):
            "the rule nests deeper than \(maximum) levels" + Self.describeChain(chain)
                + "; flatten it (an \"and\", \"or\" or \"if\" takes any number of arguments)"
        }
    }
}
