/// Evaluation of compiled rules with JSON Logic's reference (JavaScript) semantics.
///
/// Evaluation never fails: bad input to a JSON Logic operator gives what JavaScript would
/// (`NaN`, `false`, an empty array), and flagd's operators give `null`.
extension LogicExpression {
    /// Evaluates this node. Counts one step, and the elements it builds, against `state`'s
    /// budget; once that is spent every node returns `null` at once and the caller reports the
    /// exceeded limit.
    func evaluate(_ data: LogicData, _ environment: LogicEnvironment, _ state: inout EvaluationState) -> JSONValue {
        guard state.step() else { return .null }
        switch self {
        case .literal(let value):
            return value
        case .array(let elements):
            guard state.allocate(elements.count) else { return .null }
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(element.evaluate(data, environment, &state)) }
            return .array(values)
        case .variable(let path, let defaultValue):
            let found: JSONValue?
            switch path {
            case .whole:
                guard state.allocate(data.wholeValueSize) else { return .null }
                found = data.wholeValue
            case .key, .keys:
                found = Self.lookUp(literalPath: path, in: data)
            case .computed(let expression):
                let computedPath = expression.evaluate(data, environment, &state)
                guard state.allocate(data.wholeValueSize) else { return .null }
                found = Self.lookUp(computedPath: computedPath, in: data)
            }
            if let found { return found }
            return defaultValue?.evaluate(data, environment, &state) ?? .null
        case .operation(let op, let arguments):
            return Self.apply(op, arguments, data, environment, &state)
        case .reference(let slot, let expression):
            guard state.iterationDepth == 0 else { return expression.evaluate(data, environment, &state) }
            if let known = state.memo.value(for: slot) { return known }
            let value = expression.evaluate(data, environment, &state)
            state.memo.remember(value, for: slot)
            return value
        case .membership, .comparison, .fractional:
            // Unpacked in their own frames: this one stays small (see ``apply(_:_:_:_:_:)``).
            return evaluateSpecialized(data, environment, &state)
        }
    }

    @inline(never)
    private func evaluateSpecialized(_ data: LogicData, _ environment: LogicEnvironment, _ state: inout EvaluationState) -> JSONValue {
        switch self {
        case .membership(let needle, let elements):
            return Self.membership(needle, elements, data, environment, &state)
        case .comparison(let op, let expression, let literal, let literalFirst):
            return Self.comparison(op, expression, literal, literalFirst, data, environment, &state)
        case .fractional(let buckets):
            return FractionalOperator.evaluate(buckets, data, environment, &state)
        default:
            return .null  // not a specialised node
        }
    }

    /// ``membership(_:_:)``: `in` with a literal array. Its own frame, as the operators' (see
    /// ``apply(_:_:_:_:_:)``).
    @inline(never)
    private static func membership(
        _ needle: LogicExpression, _ elements: [JSONValue], _ data: LogicData, _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        let value = needle.evaluate(data, environment, &state)
        // The haystack literal's step, as the general `in` counts it.
        guard state.step() else { return .null }
        for element in elements where JavaScriptSemantics.strictEquals(element, value) { return .bool(true) }
        return .bool(false)
    }

    /// ``comparison(_:_:_:literalFirst:)``: an equality with a literal, the literal's step
    /// counted where the general operation counts it.
    @inline(never)
    private static func comparison(
        _ op: LogicOperator, _ expression: LogicExpression, _ literal: JSONValue, _ literalFirst: Bool,
        _ data: LogicData, _ environment: LogicEnvironment, _ state: inout EvaluationState
    ) -> JSONValue {
        if literalFirst, !state.step() { return .null }
        let value = expression.evaluate(data, environment, &state)
        if !literalFirst, !state.step() { return .null }
        let (lhs, rhs) = literalFirst ? (literal, value) : (value, literal)
        switch op {
        case .equal: return .bool(JavaScriptSemantics.looseEquals(lhs, rhs))
        case .notEqual: return .bool(!JavaScriptSemantics.looseEquals(lhs, rhs))
        case .strictEqual: return .bool(JavaScriptSemantics.strictEquals(lhs, rhs))
        default: return .bool(!JavaScriptSemantics.strictEquals(lhs, rhs))
        }
    }

    /// Whether the rule was written as a JSON array (a `fractional` bucket, say).
    var isWrittenAsArray: Bool {
        switch self {
        case .array, .literal(.array): true
        default: false
        }
    }

    @inline(never)
    private static func lookUp(literalPath: VariablePath, in data: LogicData) -> JSONValue? {
        switch literalPath {
        case .key(let key): data.lookUp(key: key)
        case .keys(let keys): data.lookUp(keys)
        default: nil  // not a literal path
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

    /// The operators rules nest most (logic, equality, `in`), each kept to few locals: evaluation
    /// recurses through this function, so its frame sets how deep a rule may go on a small stack
    /// (``JSONLogicCompiler/maximumDepth``). The rest go to ``applyOther(_:_:_:_:_:)``.
    private static func apply(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        typealias JS = JavaScriptSemantics
        func value(_ index: Int) -> JSONValue? {
            index < arguments.count ? arguments[index].evaluate(data, environment, &state) : nil
        }

        switch op {
        case .if, .ternary:
            var index = 0
            while index + 1 < arguments.count {
                if JS.isTruthy(arguments[index].evaluate(data, environment, &state)) {
                    return arguments[index + 1].evaluate(data, environment, &state)
                }
                index += 2
            }
            return index < arguments.count ? arguments[index].evaluate(data, environment, &state) : .null
        case .and:
            var current = JSONValue.null
            for argument in arguments {
                current = argument.evaluate(data, environment, &state)
                if !JS.isTruthy(current) { return current }
            }
            return current
        case .or:
            var current = JSONValue.null
            for argument in arguments {
                current = argument.evaluate(data, environment, &state)
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
        default:
            return applyOther(op, arguments, data, environment, &state)
        }
    }

    /// The other operators, each group in a function of its own so that no single frame holds
    /// every operator's locals (the frames of a deep rule stay small on a 512 KB stack).
    @inline(never)
    private static func applyOther(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        switch op {
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            return applyComparison(op, arguments, data, environment, &state)
        case .max, .min, .add, .multiply:
            return applySum(op, arguments, data, environment, &state)
        case .subtract, .divide, .modulo:
            return applyDifference(op, arguments, data, environment, &state)
        case .map, .filter, .all, .none, .some, .reduce:
            return applyIteration(op, arguments, data, environment, &state)
        case .merge, .cat, .substr, .missing, .missingSome:
            return applyCollection(op, arguments, data, environment, &state)
        case .fractional, .semVer, .startsWith, .endsWith:
            return applyFlagd(op, arguments, data, environment, &state)
        case .if, .ternary, .and, .or, .equal, .notEqual, .strictEqual, .strictNotEqual, .not, .toBoolean, .in:
            return apply(op, arguments, data, environment, &state)
        }
    }

    @inline(never)
    private static func applyIteration(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        typealias JS = JavaScriptSemantics
        func value(_ index: Int) -> JSONValue? {
            index < arguments.count ? arguments[index].evaluate(data, environment, &state) : nil
        }
        func values() -> [JSONValue] {
            var values: [JSONValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(argument.evaluate(data, environment, &state)) }
            return values
        }
        /// Evaluates `body` on each element, with the element as data.
        func each(_ elements: [JSONValue], _ body: LogicExpression, _ visit: (JSONValue, JSONValue) -> Bool) {
            state.iterationDepth += 1
            defer { state.iterationDepth -= 1 }
            for element in elements {
                if state.isExhausted { return }
                if !visit(element, body.evaluate(.value(element), environment, &state)) { return }
            }
        }
        func filtered() -> [JSONValue] {
            guard case .array(let elements)? = value(0), arguments.count > 1 else { return [] }
            guard state.allocate(elements.count) else { return [] }
            var kept: [JSONValue] = []
            each(elements, arguments[1]) { element, result in
                if JS.isTruthy(result) { kept.append(element) }
                return true
            }
            return kept
        }

        switch op {
        case .map:
            guard case .array(let elements)? = value(0) else { return .array([]) }
            guard state.allocate(elements.count) else { return .null }
            guard arguments.count > 1 else { return .array(elements.map { _ in .null }) }
            var mapped: [JSONValue] = []
            mapped.reserveCapacity(elements.count)
            each(elements, arguments[1]) { _, result in
                mapped.append(result)
                return true
            }
            return .array(mapped)
        case .filter:
            return .array(filtered())
        case .all:
            guard case .array(let elements)? = value(0), !elements.isEmpty else { return .bool(false) }
            guard arguments.count > 1 else { return .bool(false) }
            var all = true
            each(elements, arguments[1]) { _, result in
                all = JS.isTruthy(result)
                return all
            }
            return .bool(all)
        case .none:
            return .bool(filtered().isEmpty)
        case .some:
            return .bool(!filtered().isEmpty)
        case .reduce:
            let initial = value(2) ?? .null
            guard case .array(let elements)? = value(0) else { return initial }
            guard arguments.count > 1 else { return elements.isEmpty ? initial : .null }
            var accumulator = initial
            state.iterationDepth += 1
            defer { state.iterationDepth -= 1 }
            for current in elements {
                guard state.allocate(2) else { return .null }
                let scope = JSONValue.object(["current": current, "accumulator": accumulator])
                accumulator = arguments[1].evaluate(.value(scope), environment, &state)
            }
            return accumulator

        default:
            return .null  // not one of this group's operators
        }
    }

    @inline(never)
    private static func applyCollection(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        typealias JS = JavaScriptSemantics
        func value(_ index: Int) -> JSONValue? {
            index < arguments.count ? arguments[index].evaluate(data, environment, &state) : nil
        }
        func values() -> [JSONValue] {
            var values: [JSONValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(argument.evaluate(data, environment, &state)) }
            return values
        }
        /// Evaluates `body` on each element, with the element as data.
        func each(_ elements: [JSONValue], _ body: LogicExpression, _ visit: (JSONValue, JSONValue) -> Bool) {
            state.iterationDepth += 1
            defer { state.iterationDepth -= 1 }
            for element in elements {
                if state.isExhausted { return }
                if !visit(element, body.evaluate(.value(element), environment, &state)) { return }
            }
        }
        func filtered() -> [JSONValue] {
            guard case .array(let elements)? = value(0), arguments.count > 1 else { return [] }
            guard state.allocate(elements.count) else { return [] }
            var kept: [JSONValue] = []
            each(elements, arguments[1]) { element, result in
                if JS.isTruthy(result) { kept.append(element) }
                return true
            }
            return kept
        }

        switch op {
        case .merge:
            let parts = values()
            var total = 0
            for part in parts {
                if case .array(let inner) = part { total += inner.count } else { total += 1 }
            }
            guard state.allocate(total) else { return .null }
            var merged: [JSONValue] = []
            merged.reserveCapacity(total)
            for part in parts {
                if case .array(let inner) = part { merged.append(contentsOf: inner) } else { merged.append(part) }
            }
            return .array(merged)
        case .cat:
            let parts = values().map(JS.joinElementString)
            guard state.allocate(parts.reduce(0) { $0 + $1.utf8.count }) else { return .null }
            return .string(parts.joined())
        case .substr:
            let result = substring(value(0) ?? .null, start: value(1) ?? .null, length: value(2))
            guard state.allocate(result.stringValue?.utf8.count ?? 0) else { return .null }
            return result

        case .missing:
            let keys = missingKeys(values(), data)
            guard state.allocate(keys.count) else { return .null }
            return .array(keys)
        case .missingSome:
            let need = JS.toNumber(value(0) ?? .null)
            let options = value(1)?.arrayValue ?? []
            let missing = missingKeys([.array(options)], data)
            guard state.allocate(missing.count) else { return .null }
            return Double(options.count - missing.count) >= need ? .array([]) : .array(missing)

        default:
            return .null  // not one of this group's operators
        }
    }

    @inline(never)
    private static func applyFlagd(
        _ op: LogicOperator,
        _ arguments: [LogicExpression],
        _ data: LogicData,
        _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        typealias JS = JavaScriptSemantics
        func value(_ index: Int) -> JSONValue? {
            index < arguments.count ? arguments[index].evaluate(data, environment, &state) : nil
        }
        func values() -> [JSONValue] {
            var values: [JSONValue] = []
            values.reserveCapacity(arguments.count)
            for argument in arguments { values.append(argument.evaluate(data, environment, &state)) }
            return values
        }
        /// Evaluates `body` on each element, with the element as data.
        func each(_ elements: [JSONValue], _ body: LogicExpression, _ visit: (JSONValue, JSONValue) -> Bool) {
            state.iterationDepth += 1
            defer { state.iterationDepth -= 1 }
            for element in elements {
                if state.isExhausted { return }
                if !visit(element, body.evaluate(.value(element), environment, &state)) { return }
            }
        }
        func filtered() -> [JSONValue] {
            guard case .array(let elements)? = value(0), arguments.count > 1 else { return [] }
            guard state.allocate(elements.count) else { return [] }
            var kept: [JSONValue] = []
            each(elements, arguments[1]) { element, result in
                if JS.isTruthy(result) { kept.append(element) }
                return true
            }
            return kept
        }

        switch op {
        case .fractional:
            return FractionalOperator.evaluate(arguments, data, environment, &state)
        case .semVer:
            return SemVerOperator.evaluate(values())
        case .startsWith:
            return StringAffixOperator.evaluate(values(), matching: .prefix)
        case .endsWith:
            return StringAffixOperator.evaluate(values(), matching: .suffix)
        default:
            return .null  // not one of this group's operators
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
