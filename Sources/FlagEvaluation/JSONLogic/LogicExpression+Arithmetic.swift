/// Comparison and arithmetic operators (`<`, `<=`, `>`, `>=`, `max`, `min`, `+`, `*`, `-`, `/`,
/// `%`) with JSON Logic's reference (JavaScript) semantics; dispatched from
/// ``LogicExpression/evaluate(_:_:_:)``.
extension LogicExpression {
    @inline(never)
    static func applyComparison(
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

        default:
            return .null  // not one of this group's operators
        }
    }

    @inline(never)
    static func applySum(
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
        default:
            return .null  // not one of this group's operators
        }
    }

    @inline(never)
    static func applyDifference(
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

        default:
            return .null  // not one of this group's operators
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
}
