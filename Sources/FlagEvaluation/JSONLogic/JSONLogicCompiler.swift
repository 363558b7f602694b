/// Compiles JSON rules into ``LogicExpression`` trees.
///
/// Two kinds of problems are found:
/// - fatal ones (an unknown operator, a `$ref` to a missing evaluator, a `$ref` cycle) throw
///   ``JSONLogicError``: the rule can never run;
/// - departures from flagd's targeting schema (wrong argument counts, a literal where the schema
///   wants a rule, a `sem_ver` range it does not allow, ...) are collected in ``schemaViolations``.
///   The rule still compiles and runs with JSON Logic's lenient semantics (flagd's operators
///   return `null` on bad input), which is how flagd itself treats them at evaluation time.
struct JSONLogicCompiler {
    /// Shared rules, by name, that `{"$ref": "name"}` refers to.
    let evaluators: [String: JSONValue]
    /// Schema departures found so far, each naming the operator and the problem.
    private(set) var schemaViolations: [String] = []

    private var compiledEvaluators: [String: LogicExpression] = [:]
    private var referenceStack: [String] = []

    init(evaluators: [String: JSONValue] = [:]) {
        self.evaluators = evaluators
    }

    mutating func compile(_ json: JSONValue) throws(JSONLogicError) -> LogicExpression {
        switch json {
        case .array(let elements):
            var compiled: [LogicExpression] = []
            compiled.reserveCapacity(elements.count)
            var allLiteral = true
            for element in elements {
                let expression = try compile(element)
                if case .literal = expression {} else { allLiteral = false }
                compiled.append(expression)
            }
            return allLiteral ? .literal(json) : .array(compiled)
        case .object(let members):
            guard members.count == 1, let (name, argument) = members.first else {
                if !members.isEmpty {
                    note("an object with \(members.count) keys is not a rule; a rule has exactly one operator key")
                }
                return .literal(json)
            }
            return try compileOperation(name, argument)
        default:
            return .literal(json)
        }
    }

    private mutating func compileOperation(_ name: String, _ argument: JSONValue) throws(JSONLogicError) -> LogicExpression {
        if name == "$ref" {
            return try resolveReference(argument)
        }
        if name == LogicOperator.variableName {
            return try compileVariable(argument)
        }
        guard let op = LogicOperator(rawValue: name) else {
            throw .unknownOperator(name)
        }
        let rawArguments: [JSONValue]
        if case .array(let elements) = argument {
            rawArguments = elements
        } else {
            rawArguments = [argument]
        }
        checkSchema(op, argument: argument, arguments: rawArguments)
        var arguments: [LogicExpression] = []
        arguments.reserveCapacity(rawArguments.count)
        for raw in rawArguments {
            arguments.append(try compile(raw))
        }
        return .operation(op, arguments)
    }

    private mutating func resolveReference(_ argument: JSONValue) throws(JSONLogicError) -> LogicExpression {
        guard case .string(let name) = argument else {
            throw .invalidReference(argument.serialized())
        }
        if let cached = compiledEvaluators[name] { return cached }
        if referenceStack.contains(name) {
            throw .circularReference(referenceStack + [name])
        }
        guard let rule = evaluators[name] else { throw .missingEvaluator(name) }
        referenceStack.append(name)
        defer { referenceStack.removeLast() }
        let compiled = try compile(rule)
        compiledEvaluators[name] = compiled
        return compiled
    }

    private mutating func compileVariable(_ argument: JSONValue) throws(JSONLogicError) -> LogicExpression {
        let arguments: [JSONValue]
        if case .array(let elements) = argument {
            arguments = elements
            if elements.isEmpty {
                note("var: expects a path or [path, default], got an empty array")
            } else if elements[0].stringValue == nil {
                note("var: the path must be a string, got \(elements[0].typeName)")
            }
            for extra in elements.dropFirst() {
                switch extra {
                case .array, .object: note("var: the default value must be null, a boolean, a string or a number")
                default: break
                }
            }
        } else {
            arguments = [argument]
            if argument.stringValue == nil {
                note("var: the path must be a string, got \(argument.typeName)")
            }
        }
        if let path = arguments.first?.stringValue, path.hasPrefix("$flagd."),
            path != "$flagd.timestamp", path != "$flagd.flagKey"
        {
            note("var: \"\(path)\" is not a flagd property; only $flagd.timestamp and $flagd.flagKey exist")
        }
        let path: VariablePath
        switch arguments.first {
        case nil, .null?:
            path = .whole
        case .string(let text)?:
            path = text.isEmpty ? .whole : .keys(Self.splitPath(text))
        case .int(let number)?:
            path = .keys([String(number)])
        case .double(let number)?:
            path = .keys(Self.splitPath(JavaScriptSemantics.numberToString(number)))
        case let other?:
            let expression = try compile(other)
            if case .literal(let value) = expression {
                path = .keys(Self.splitPath(JavaScriptSemantics.toJSString(value)))
            } else {
                path = .computed(expression)
            }
        }
        let defaultValue: LogicExpression? = arguments.count > 1 ? try compile(arguments[1]) : nil
        return .variable(path, defaultValue: defaultValue)
    }

    static func splitPath(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    private mutating func note(_ message: String) {
        schemaViolations.append(message)
    }

    // MARK: - flagd targeting schema

    private mutating func checkSchema(_ op: LogicOperator, argument: JSONValue, arguments: [JSONValue]) {
        let name = op.rawValue
        let isArray = argument.arrayValue != nil
        func requireArray(_ range: ClosedRange<Int>, _ shape: String) {
            if !isArray || !range.contains(arguments.count) {
                note("\(name): expects \(shape), got \(isArray ? "\(arguments.count) arguments" : "a single \(argument.typeName)")")
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
            if isArray && arguments.count != 1 { note("\(name): expects 1 argument, got \(arguments.count)") }
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
            requireArray(2...2, "an array of 2 arguments")
            for value in arguments where !Self.isRule(value) && value.stringValue == nil {
                note("\(name): arguments must be strings or rules, got \(value.typeName) \(value.serialized())")
            }
        case .semVer:
            checkSemVer(argument: argument, arguments: arguments)
        case .fractional:
            checkFractional(argument: argument, arguments: arguments)
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
