/// flagd's targeting schema: the departures from it that ``JSONLogicCompiler/schemaViolations``
/// lists (argument counts, argument values of `missing`, `starts_with`, `sem_ver`, `fractional`).
extension JSONLogicCompiler {
    mutating func checkSchema(_ op: LogicOperator, argument: JSONValue, arguments: [JSONValue]) {
        let name = op.rawValue
        let isArray = argument.arrayValue != nil
        checkArity(op, isArray: isArray, count: arguments.count, typeName: argument.typeName)
        switch op {
        case .missing:
            if !isArray || arguments.contains(where: { $0.stringValue == nil }) {
                note("missing: expects an array of key strings")
            }
        case .missingSome:
            if !isArray || arguments.count != 2 || !arguments[0].isNumber
                || !(arguments[1].arrayValue?.allSatisfy { $0.stringValue != nil } ?? false)
            {
                note("missing_some: expects [minimum count, [key strings]]")
            }
        case .startsWith, .endsWith:
            for value in arguments where !Self.isRule(value) && value.stringValue == nil {
                note("\(name): arguments must be strings or rules, got \(value.typeName) \(value.serialized())")
            }
        case .semVer:
            checkSemVer(argument: argument, arguments: arguments)
        case .fractional:
            checkFractional(argument: argument, arguments: arguments)
        default:
            break
        }
    }

    /// Notes a wrong number of arguments of `op`, all the schema restricts of the operators that
    /// ``checksArgumentValues(_:)`` leaves out (``checkSchema(_:argument:arguments:)`` checks the
    /// others' values too). `count` is 1 for a single argument not in an array, of type `typeName`.
    mutating func checkArity(_ op: LogicOperator, isArray: Bool, count: Int, typeName: @autoclosure () -> String) {
        let name = op.rawValue
        func requireArray(_ range: ClosedRange<Int>, _ shape: String) {
            if !isArray || !range.contains(count) {
                note("\(name): expects \(shape), got \(isArray ? "\(count) arguments" : "a single \(typeName())")")
            }
        }
        switch op {
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .greater, .greaterOrEqual, .modulo, .divide,
            .map, .filter, .all, .none, .some, .in:
            requireArray(2...2, "an array of 2 arguments")
        case .less, .lessOrEqual, .substr:
            requireArray(2...3, "an array of 2 or 3 arguments")
        case .if, .or, .and, .add, .subtract, .max, .min, .merge, .cat:
            requireArray(1...Int.max, "an array of at least 1 argument")
        case .ternary:
            requireArray(1...Int.max, "an array of at least 1 argument")
        case .multiply:
            requireArray(2...Int.max, "an array of at least 2 arguments")
        case .reduce:
            requireArray(3...3, "an array of 3 arguments")
        case .not, .toBoolean:
            if isArray && count != 1 { note("\(name): expects 1 argument, got \(count)") }
        case .startsWith, .endsWith:
            requireArray(2...2, "an array of 2 arguments")
        case .missing, .missingSome, .semVer, .fractional:
            break
        }
    }

    /// Whether the schema restricts the values of `op`'s arguments, not only how many there are.
    static func checksArgumentValues(_ op: LogicOperator) -> Bool {
        switch op {
        case .missing, .missingSome, .startsWith, .endsWith, .semVer, .fractional: true
        default: false
        }
    }

    private static func isRule(_ value: JSONValue) -> Bool {
        if case .object(let members) = value { return members.count == 1 }
        return false
    }

    private mutating func checkSemVer(argument: JSONValue, arguments: [JSONValue]) {
        guard argument.arrayValue != nil, arguments.count == 3 else {
            note("sem_ver: expects [version, operator, version], got \(arguments.count) arguments")
            return
        }
        for index in [0, 2] {
            let value = arguments[index]
            if case .object(let members) = value, members.count == 1, members.keys.first == "var" || members.keys.first == "$ref" {
                continue
            }
            if case .string(let text) = value, SemanticVersion(strict: text) != nil { continue }
            note("sem_ver: \(value.serialized()) is not a full semantic version (MAJOR.MINOR.PATCH) or a var rule")
        }
        if Self.isRule(arguments[1]) { return }
        if arguments[1].stringValue.flatMap(SemVerComparison.init(rawValue:)) == nil {
            note("sem_ver: the operator \(arguments[1].serialized()) is not one of =, !=, <, <=, >, >=, ^, ~")
        }
    }

    private mutating func checkFractional(argument: JSONValue, arguments: [JSONValue]) {
        guard argument.arrayValue != nil, !arguments.isEmpty else {
            note("fractional: expects an array of [variant, weight] buckets, optionally after a bucketing rule")
            return
        }
        var buckets = arguments[...]
        if arguments[0].arrayValue == nil {
            if !Self.isRule(arguments[0]) {
                note("fractional: the bucketing value must be a rule such as {\"var\": \"email\"}, not the literal \(arguments[0].serialized())")
            }
            buckets = arguments.dropFirst()
        }
        for bucket in buckets {
            guard case .array(let pair) = bucket, (1...2).contains(pair.count) else {
                note("fractional: each bucket must be [variant] or [variant, weight], got \(bucket.serialized())")
                continue
            }
            if pair.count == 2 {
                let weight = pair[1]
                if Self.isRule(weight) { continue }
                if case .int(let value) = weight, value >= 0 { continue }
                note("fractional: the weight \(weight.serialized()) of bucket \(pair[0].serialized()) must be a non-negative integer or a rule")
            }
        }
    }
}
