/// A rule that cannot be compiled at all, so it can never be evaluated.
public struct JSONLogicError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable {
        case unknownOperator(String)
        case missingEvaluator(String)
        case circularReference([String])
        case invalidReference(String)
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    static func unknownOperator(_ name: String) -> Self { Self(.unknownOperator(name)) }
    static func missingEvaluator(_ name: String) -> Self { Self(.missingEvaluator(name)) }
    static func circularReference(_ chain: [String]) -> Self { Self(.circularReference(chain)) }
    static func invalidReference(_ value: String) -> Self { Self(.invalidReference(value)) }

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
        }
    }
}
