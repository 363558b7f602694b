/// Every operator the engine knows: the JSON Logic operators flagd's targeting schema allows,
/// plus flagd's `fractional`, `sem_ver`, `starts_with` and `ends_with`.
enum LogicOperator: String, Sendable, CaseIterable {
    case `if`
    case ternary = "?:"
    case equal = "=="
    case strictEqual = "==="
    case notEqual = "!="
    case strictNotEqual = "!=="
    case not = "!"
    case toBoolean = "!!"
    case or
    case and
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case max
    case min
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case modulo = "%"
    case map
    case filter
    case reduce
    case all
    case none
    case some
    case merge
    case `in`
    case cat
    case substr
    case missing
    case missingSome = "missing_some"
    case fractional
    case semVer = "sem_ver"
    case startsWith = "starts_with"
    case endsWith = "ends_with"

    // `var` is compiled to ``LogicExpression/variable(_:defaultValue:)`` rather than an operation.
    static let variableName = "var"

    /// The operator named `name`, found by hashing the name once (`init(rawValue:)` compares it
    /// with each operator's name in turn).
    static func named(_ name: String) -> LogicOperator? {
        byName[name]
    }

    private static let byName = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}
