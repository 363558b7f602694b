/// flagd's `sem_ver` operator: `[version, comparison, version]`.
///
/// Versions may be strings (with an optional `v`, and `1` or `1.2` shorthands) or numbers (`2`
/// and `1.2` are read as `2.0.0` and `1.2.0`). `^` tests for the same major version and `~` for
/// the same major and minor version, as flagd does. A wrong argument count, an unknown comparison
/// or an unparsable version gives `null`, so the flag falls back to its default variant.
enum SemVerOperator {
    static func evaluate(_ arguments: [JSONValue]) -> JSONValue {
        guard arguments.count == 3,
            case .string(let symbol) = arguments[1],
            let comparison = SemVerComparison(rawValue: symbol),
            let version = parse(arguments[0]),
            let target = parse(arguments[2])
        else { return .null }
        return .bool(comparison.holds(version, target))
    }

    private static func parse(_ value: JSONValue) -> SemanticVersion? {
        switch value {
        case .string(let text): SemanticVersion(lenient: text)
        case .int, .double: SemanticVersion(lenient: JavaScriptSemantics.toJSString(value))
        default: nil
        }
    }
}
