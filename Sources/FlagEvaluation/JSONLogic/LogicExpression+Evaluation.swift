/// Evaluation of compiled rules with JSON Logic's reference (JavaScript) semantics.
///
/// Evaluation never fails: bad input to a JSON Logic operator gives what JavaScript would
/// (`NaN`, `false`, an empty array), and flagd's operators give `null`.
extension LogicExpression {
    func evaluate(_ data: LogicData, _ environment: LogicEnvironment) -> JSONValue {
        switch self {
        case .literal(let value):
            return value
        case .array(let elements):
            return .array(elements.map { $0.evaluate(data, environment) })
        case .variable(let path, let defaultValue):
            let found: JSONValue?
            switch path {
            case .whole:
                found = data.wholeValue
            case .keys(let keys):
                found = data.lookUp(keys)
            case .computed(let expression):
                found = Self.lookUp(computedPath: expression.evaluate(data, environment), in: data)
            }
            if let found { return found }
            return defaultValue?.evaluate(data, environment) ?? .null
        case .operation(let op, let arguments):
            return Self.apply(op, arguments, data, environment)
        }
    }

    private static func lookUp(computedPath: JSONValue, in data: LogicData) -> JSONValue? {
        switch computedPath {
        case .null: return data.wholeValue
        case .string(let text) where text.isEmpty: return data.wholeValue
        case .array(let elements) where elements.isEmpty: return data.wholeValue
        default: return data.lookUp(JSONLogicCompiler.splitPath(JavaScriptSemantics.toJSString(computedPath)))
        }
    }

    private static func apply(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment
    ) -> JSONValue {
        typealias JS = JavaScriptSemantics
        func value(_ index: Int) -> JSONValue? {
            index < arguments.count ? arguments[index].evaluate(data, environment) : nil
        }
        func values() -> [JSONValue] {
            arguments.map { $0.evaluate(data, environment) }
        }

        switch op {
        case .if, .ternary:
            var index = 0
            while index + 1 < arguments.count {
                if JS.isTruthy(arguments[index].evaluate(data, environment)) {
                    return arguments[index + 1].evaluate(data, environment)
                }
                index += 2
            }
            return index < arguments.count ? arguments[index].evaluate(data, environment) : .null
        case .and:
            var current = JSONValue.null
            for argument in arguments {
                current = argument.evaluate(data, environment)
                if !JS.isTruthy(current) { return current }
            }
            return current
        case .or:
            var current = JSONValue.null
            for argument in arguments {
                current = argument.evaluate(data, environment)
                if JS.isTruthy(current) { return current }
            }
            return current

        case .equal:
            return .bool(JS.looseEquals(value(0) ?? .null, value(1) ?? .null))
        case .notEqual:
            return .bool(!JS.looseEquals(value(0) ?? .null, value(1) ?? .null))
        case .strictEqual:
            return .bool(strictEqualsAllowingUndefined(value(0), value(1)))
        case .strictNotEqual:
            return .bool(!strictEqualsAllowingUndefined(value(0), value(1)))
        case .not:
            return .bool(!JS.isTruthy(value(0) ?? .null))
        case .toBoolean:
            return .bool(JS.isTruthy(value(0) ?? .null))

        case .less, .lessOrEqual:
            let compare = op == .less ? JS.less : JS.lessOrEqual
            guard let a = value(0), let b = value(1) else { return .bool(false) }
            guard let c = value(2) else { return .bool(compare(a, b)) }
            return .bool(compare(a, b) && compare(b, c))
        case .greater:
            guard let a = value(0), let b = value(1) else { return .bool(false) }
            return .bool(JS.less(b, a))
        case .greaterOrEqual:
            guard let a = value(0), let b = value(1) else { return .bool(false) }
            return .bool(JS.lessOrEqual(b, a))

        case .max, .min:
            let numbers = values().map(JS.toNumber)
            if numbers.contains(where: \.isNaN) { return .double(.nan) }
            if op == .max { return JS.number(numbers.max() ?? -.infinity) }
            return JS.number(numbers.min() ?? .infinity)
        case .add:
            let operands = values()
            if let sum = exactIntegerFold(operands, initial: 0, { $0.addingReportingOverflow($1) }) {
                return .int(sum)
            }
            return JS.number(operands.reduce(0) { $0 + JS.parseFloat($1) })
        case .multiply:
            let operands = values()
            guard !operands.isEmpty else { return .null }
            if let product = exactIntegerFold(operands, initial: 1, { $0.multipliedReportingOverflow(by: $1) }) {
                return .int(product)
            }
            return JS.number(operands.dropFirst().reduce(JS.parseFloat(operands[0])) { $0 * JS.parseFloat($1) })
        case .subtract:
            guard let a = value(0) else { return .double(.nan) }
            guard let b = value(1) else {
                if case .int(let x) = a, x != .min { return .int(-x) }
                return JS.number(-JS.toNumber(a))
            }
            if case .int(let x) = a, case .int(let y) = b {
                let (result, overflow) = x.subtractingReportingOverflow(y)
                if !overflow { return .int(result) }
            }
            return JS.number(JS.toNumber(a) - JS.toNumber(b))
        case .divide:
            let a = value(0) ?? .null
            let b = value(1) ?? .null
            if b.isNull && arguments.count < 2 { return .double(.nan) }
            if case .int(let x) = a, case .int(let y) = b, y != 0, x % y == 0, !(x == .min && y == -1) {
                return .int(x / y)
            }
            return JS.number(JS.toNumber(a) / JS.toNumber(b))
        case .modulo:
            let a = value(0) ?? .null
            let b = value(1) ?? .null
            if arguments.count < 2 { return .double(.nan) }
            if case .int(let x) = a, case .int(let y) = b, y != 0 {
                let (result, overflow) = x.remainderReportingOverflow(dividingBy: y)
                return overflow ? .int(0) : .int(result)
            }
            return JS.number(JS.toNumber(a).truncatingRemainder(dividingBy: JS.toNumber(b)))

        case .map:
            guard case .array(let elements)? = value(0) else { return .array([]) }
            guard arguments.count > 1 else { return .array(elements.map { _ in .null }) }
            return .array(elements.map { arguments[1].evaluate(.value($0), environment) })
        case .filter:
            return .array(filtered(arguments, data, environment))
        case .all:
            guard case .array(let elements)? = value(0), !elements.isEmpty else { return .bool(false) }
            guard arguments.count > 1 else { return .bool(false) }
            return .bool(elements.allSatisfy { JS.isTruthy(arguments[1].evaluate(.value($0), environment)) })
        case .none:
            return .bool(filtered(arguments, data, environment).isEmpty)
        case .some:
            return .bool(!filtered(arguments, data, environment).isEmpty)
        case .reduce:
            let initial = value(2) ?? .null
            guard case .array(let elements)? = value(0) else { return initial }
            guard arguments.count > 1 else { return elements.isEmpty ? initial : .null }
            return elements.reduce(initial) { accumulator, current in
                arguments[1].evaluate(.value(.object(["current": current, "accumulator": accumulator])), environment)
            }

        case .merge:
            var merged: [JSONValue] = []
            for element in values() {
                if case .array(let inner) = element { merged.append(contentsOf: inner) } else { merged.append(element) }
            }
            return .array(merged)
        case .in:
            guard let needle = value(0), let haystack = value(1) else { return .bool(false) }
            switch haystack {
            case .string(let text):
                return .bool(text.contains(JS.toJSString(needle)) || JS.toJSString(needle).isEmpty)
            case .array(let elements):
                return .bool(elements.contains { JS.strictEquals($0, needle) })
            default:
                return .bool(false)
            }
        case .cat:
            return .string(values().map(JS.joinElementString).joined())
        case .substr:
            return substring(value(0) ?? .null, start: value(1) ?? .null, length: value(2))

        case .missing:
            return .array(missingKeys(values(), data))
        case .missingSome:
            let need = JS.toNumber(value(0) ?? .null)
            let options = value(1)?.arrayValue ?? []
            let missing = missingKeys([.array(options)], data)
            return Double(options.count - missing.count) >= need ? .array([]) : .array(missing)

        case .fractional:
            return FractionalOperator.evaluate(
                count: arguments.count, argument: { arguments[$0].evaluate(data, environment) }, environment)
        case .semVer:
            return SemVerOperator.evaluate(values())
        case .startsWith:
            return StringAffixOperator.evaluate(values(), matching: .prefix)
        case .endsWith:
            return StringAffixOperator.evaluate(values(), matching: .suffix)
        }
    }

    /// `===` where a missing argument is JavaScript's `undefined`, equal only to another one.
    private static func strictEqualsAllowingUndefined(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let a?, let b?): JavaScriptSemantics.strictEquals(a, b)
        default: false
        }
    }

    /// Folds integer operands exactly; `nil` when some operand is not an integer or on overflow.
    private static func exactIntegerFold(
        _ operands: [JSONValue],
        initial: Int,
        _ combine: (Int, Int) -> (partialValue: Int, overflow: Bool)
    ) -> Int? {
        var result = initial
        for operand in operands {
            guard case .int(let number) = operand else { return nil }
            let (next, overflow) = combine(result, number)
            if overflow { return nil }
            result = next
        }
        return result
    }

    private static func filtered(
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment
    ) -> [JSONValue] {
        guard let source = arguments.first, case .array(let elements) = source.evaluate(data, environment) else {
            return []
        }
        guard arguments.count > 1 else { return [] }
        return elements.filter { JavaScriptSemantics.isTruthy(arguments[1].evaluate(.value($0), environment)) }
    }

    private static func missingKeys(_ arguments: [JSONValue], _ data: LogicData) -> [JSONValue] {
        let keys: [JSONValue]
        if case .array(let list)? = arguments.first { keys = list } else { keys = arguments }
        return keys.filter { key in
            let found: JSONValue?
            switch key {
            case .null: found = data.wholeValue
            case .string(let text) where text.isEmpty: found = data.wholeValue
            default: found = data.lookUp(JSONLogicCompiler.splitPath(JavaScriptSemantics.toJSString(key)))
            }
            switch found {
            case nil, .null?: return true
            case .string(let text)?: return text.isEmpty
            default: return false
            }
        }
    }

    /// JavaScript `String(source).substr(start, length)`, with JSON Logic's negative length
    /// meaning "stop that many characters before the end". Counts UTF-16 code units, as
    /// JavaScript does.
    private static func substring(_ source: JSONValue, start: JSONValue, length: JSONValue?) -> JSONValue {
        let units = Array(JavaScriptSemantics.toJSString(source).utf16)
        let size = units.count
        func integer(_ value: JSONValue) -> Double {
            let number = JavaScriptSemantics.toNumber(value)
            return number.isNaN ? 0 : number.rounded(.towardZero)
        }
        let rawStart = integer(start)
        let from: Int
        if rawStart < 0 {
            from = max(size + Int(max(rawStart, -Double(size))), 0)
        } else {
            from = Int(min(rawStart, Double(size)))
        }
        var to = size
        if let length {
            let rawLength = integer(length)
            if rawLength < 0 {
                to = max(from, size + Int(max(rawLength, -Double(size))))
            } else {
                to = from + Int(min(rawLength, Double(size - from)))
            }
        }
        return .string(String(decoding: units[from..<max(from, to)], as: UTF16.self))
    }
}
