/// flagd's `starts_with` and `ends_with`: `[subject, affix]`, both strings, compared by
/// Unicode scalars. Anything else (wrong count, a non-string) gives `null`, so the flag falls back
/// to its default variant instead of looking up a `"false"` variant.
enum StringAffixOperator {
    enum Position {
        case prefix
        case suffix
    }

    static func evaluate(_ arguments: [JSONValue], matching position: Position) -> JSONValue {
        guard arguments.count == 2, case .string(let subject) = arguments[0], case .string(let affix) = arguments[1]
        else { return .null }
        switch position {
        case .prefix: return .bool(subject.unicodeScalars.starts(with: affix.unicodeScalars))
        case .suffix: return .bool(subject.unicodeScalars.reversed().starts(with: affix.unicodeScalars.reversed()))
        }
    }
}
