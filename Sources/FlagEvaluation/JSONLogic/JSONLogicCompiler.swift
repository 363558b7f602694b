internal import JSONSyntax

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
    /// The deepest a compiled rule may nest, counting every operator, array and `$ref`'d
    /// evaluator on the way down. Evaluation recurses once per level, so this bounds the stack a
    /// rule needs (well within a 512 KB secondary thread) whatever the input.
    static let maximumDepth = 100

    /// A compiled rule with what the compiler learned about it.
    struct Compiled {
        var expression: LogicExpression
        /// Levels of nesting, 1 for a literal.
        var height: Int
        /// An upper bound of the `$ref` nodes evaluation may meet (capped), for sizing the
        /// per-evaluation table of evaluator results.
        var referenceBound: Int
    }

    private struct CompiledEvaluator {
        var compiled: Compiled
        var slot: Int
        /// Schema departures inside the evaluator (and the evaluators it refers to).
        var violations: [String]
    }

    /// Shared rules, by name, that `{"$ref": "name"}` refers to.
    let evaluators: [String: JSONValue]
    /// Schema departures found in the rule being compiled, each naming the operator and the problem.
    private(set) var schemaViolations: [String] = []
    /// How many JSON nodes have been compiled so far, over every rule: each evaluator counts once,
    /// however many rules refer to it (loading stays linear in the input).
    private(set) var compiledNodeCount = 0

    private var compiledEvaluators: [String: CompiledEvaluator] = [:]
    private var referenceStack: [String] = []
    private var referencesInProgress: Set<String> = []

    init(evaluators: [String: JSONValue] = [:]) {
        self.evaluators = evaluators
    }

    /// Compiles one top-level rule. Evaluators it refers to are compiled once and reused by
    /// later rules of the same compiler.
    mutating func compileRule(_ json: JSONValue) throws(JSONLogicError) -> CompiledRule {
        schemaViolations = []
        return finish(try compile(json, depth: 1))
    }

    /// Compiles the rule at `root` of `tape`, exactly as ``compileRule(_:)-(JSONValue)`` compiles
    /// the same JSON as a value (the same rule, errors, schema departures and node count),
    /// without building the rule's objects as dictionaries: operators and their arguments are
    /// read from the tape, and only literals and arguments the schema checks value by value
    /// (`var`, `$ref`, `fractional`, ...) become `JSONValue`s.
    mutating func compileRule(_ tape: JSONTape<JSONValue>, at root: Int) throws(JSONLogicError) -> CompiledRule {
        schemaViolations = []
        return finish(try compile(tape, root, depth: 1))
    }

    private mutating func finish(_ compiled: Compiled) -> CompiledRule {
        var seen: Set<String> = []
        schemaViolations = schemaViolations.filter { seen.insert($0).inserted }
        return CompiledRule(
            expression: compiled.expression,
            referenceSlots: min(compiled.referenceBound, compiledEvaluators.count))
    }

    private mutating func compile(_ json: JSONValue, depth: Int) throws(JSONLogicError) -> Compiled {
        guard depth <= Self.maximumDepth else {
            throw .tooDeep(maximum: Self.maximumDepth, through: referenceStack)
        }
        compiledNodeCount += 1
        switch json {
        case .array(let elements):
            if let literal = scalarArray(
                count: elements.count, allScalar: elements.allSatisfy(Self.isScalar), depth: depth, json)
            {
                return literal
            }
            var children = CompiledChildren(capacity: elements.count)
            for element in elements {
                children.append(try compile(element, depth: depth + 1))
            }
            return children.array(literal: json)
        case .object(let members):
            guard members.count == 1, let (name, argument) = members.first else {
                if !members.isEmpty {
                    note("an object with \(members.count) keys is not a rule; a rule has exactly one operator key")
                }
                return Compiled(expression: .literal(json), height: 1, referenceBound: 0)
            }
            return try compileOperation(name, argument, depth: depth)
        default:
            return Compiled(expression: .literal(json), height: 1, referenceBound: 0)
        }
    }

    /// An array of scalars (a list of values, a `fractional` bucket) is a literal: known without
    /// compiling each element into a node of its own, with the same count and height. `nil` for
    /// any other array (empty, at the depth limit, or with an array or object inside); `value`
    /// is made only for a literal.
    private mutating func scalarArray(
        count: Int, allScalar: Bool, depth: Int, _ value: @autoclosure () -> JSONValue
    ) -> Compiled? {
        guard count > 0, depth < Self.maximumDepth, allScalar else { return nil }
        compiledNodeCount += count
        return Compiled(expression: .literal(value()), height: 2, referenceBound: 0)
    }

    private static func isScalar(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool, .int, .double, .string: true
        case .array, .object: false
        }
    }

    private static func cappedSum(_ a: Int, _ b: Int) -> Int {
        min(a + b, 1 << 30)
    }

    private mutating func compileOperation(_ name: String, _ argument: JSONValue, depth: Int) throws(JSONLogicError) -> Compiled {
        if name == "$ref" {
            return try resolveReference(argument, depth: depth)
        }
        if name == LogicOperator.variableName {
            return try compileVariable(argument, depth: depth)
        }
        guard let op = LogicOperator.named(name) else {
            throw .unknownOperator(name)
        }
        let rawArguments: [JSONValue]
        if case .array(let elements) = argument {
            rawArguments = elements
        } else {
            rawArguments = [argument]
        }
        checkSchema(op, argument: argument, arguments: rawArguments)
        var arguments = CompiledChildren(capacity: rawArguments.count)
        for raw in rawArguments {
            arguments.append(try compile(raw, depth: depth + 1))
        }
        return arguments.operation(op)
    }

    /// The compiled elements of an array, or arguments of an operation.
    private struct CompiledChildren {
        var expressions: [LogicExpression] = []
        var allLiteral = true
        /// 1 + the height of the highest child.
        var height = 1
        var references = 0

        init(capacity: Int) {
            expressions.reserveCapacity(capacity)
        }

        mutating func append(_ child: Compiled) {
            if case .literal = child.expression {} else { allLiteral = false }
            expressions.append(child.expression)
            height = max(height, child.height + 1)
            references = JSONLogicCompiler.cappedSum(references, child.referenceBound)
        }

        /// The array: a literal (`value`, made only then) when every element is one.
        func array(literal value: @autoclosure () -> JSONValue) -> Compiled {
            if allLiteral { return Compiled(expression: .literal(value()), height: height, referenceBound: 0) }
            return Compiled(expression: .array(expressions), height: height, referenceBound: references)
        }

        func operation(_ op: LogicOperator) -> Compiled {
            Compiled(expression: JSONLogicCompiler.specialized(op, expressions), height: height, referenceBound: references)
        }
    }

    // MARK: - Rules on a tape

    /// The rule at `node` of `tape`; see ``compileRule(_:at:)``. Each case gives what
    /// ``compile(_:depth:)`` gives for the node's value.
    private mutating func compile(_ tape: JSONTape<JSONValue>, _ node: Int, depth: Int) throws(JSONLogicError) -> Compiled {
        let info = tape.nodes[node]
        switch info.kind {
        case .scalar:
            return try compile(tape.scalar(at: node), depth: depth)
        case .object where info.count != 1:
            // Not a rule: a literal, with a schema note.
            return try compile(tape.value(at: node), depth: depth)
        case .object, .array:
            break
        }
        guard depth <= Self.maximumDepth else {
            throw .tooDeep(maximum: Self.maximumDepth, through: referenceStack)
        }
        compiledNodeCount += 1
        let count = Int(info.count)
        if info.kind == .object {
            let argument = node + 1
            return try compileOperation(tape.key(of: argument), tape, argument, depth: depth)
        }
        if let literal = scalarArray(
            count: count, allScalar: tape.children(of: node).allSatisfy({ tape.nodes[$0].kind == .scalar }), depth: depth,
            tape.value(at: node))
        {
            return literal
        }
        var children = CompiledChildren(capacity: count)
        for child in tape.children(of: node) {
            children.append(try compile(tape, child, depth: depth + 1))
        }
        return children.array(literal: tape.value(at: node))
    }

    private mutating func compileOperation(
        _ name: String, _ tape: JSONTape<JSONValue>, _ argument: Int, depth: Int
    ) throws(JSONLogicError) -> Compiled {
        let named = LogicOperator.named(name)
        if named == .fractional, let buckets = compileFractionalBuckets(tape, argument, depth: depth) {
            return buckets
        }
        // `$ref`, `var`, an unknown operator, and operators whose argument values the schema
        // checks take their (small) argument as a value.
        guard let op = named, !Self.checksArgumentValues(op) else {
            return try compileOperation(name, tape.value(at: argument), depth: depth)
        }
        let info = tape.nodes[argument]
        if op == .in, info.kind == .array, info.count == 2,
            let membership = try compileMembership(tape, argument, depth: depth)
        {
            return membership
        }
        var arguments: CompiledChildren
        if info.kind == .array {
            checkArity(op, isArray: true, count: Int(info.count), typeName: "array")
            arguments = CompiledChildren(capacity: Int(info.count))
            for child in tape.children(of: argument) {
                arguments.append(try compile(tape, child, depth: depth + 1))
            }
        } else {
            checkArity(op, isArray: false, count: 1, typeName: tape.typeName(at: argument))
            arguments = CompiledChildren(capacity: 1)
            arguments.append(try compile(tape, argument, depth: depth + 1))
        }
        return arguments.operation(op)
    }

    /// `{"in": [value, [scalars...]]}`, the usual list check, straight to the membership node
    /// ``specialized(_:_:)`` makes of it, without a literal node for the list or an array of the
    /// two arguments. `nil` when the list is not a literal array of scalars (the general path
    /// compiles it).
    private mutating func compileMembership(
        _ tape: JSONTape<JSONValue>, _ argument: Int, depth: Int
    ) throws(JSONLogicError) -> Compiled? {
        let value = argument + 1
        let list = Int(tape.nodes[value].end)
        let listInfo = tape.nodes[list]
        // The list is a literal as ``scalarArray(count:allScalar:depth:_:)`` takes one, one level down.
        guard listInfo.kind == .array, listInfo.count > 0, depth + 1 < Self.maximumDepth,
            tape.children(of: list).allSatisfy({ tape.nodes[$0].kind == .scalar })
        else { return nil }
        let compiled = try compile(tape, value, depth: depth + 1)
        var elements: [JSONValue] = []
        elements.reserveCapacity(Int(listInfo.count))
        for element in tape.children(of: list) {
            elements.append(tape.scalar(at: element))
        }
        // The list node and its elements, as compiling it as a literal counts them.
        compiledNodeCount += 1 + elements.count
        return Compiled(
            expression: .membership(compiled.expression, elements),
            height: max(compiled.height, 2) + 1,
            referenceBound: compiled.referenceBound)
    }

    /// A `fractional` written as buckets only, each `[variant]` or `[variant, weight]` with a
    /// scalar variant and a non-negative integer weight (a rollout as flag files write it),
    /// read from the tape without making its arguments into values first: what the general
    /// path compiles it to (``FractionalBuckets``, no schema note, the same node count and
    /// height), at a third of the allocations. `nil` for any other shape, which the general
    /// path compiles.
    private mutating func compileFractionalBuckets(
        _ tape: JSONTape<JSONValue>, _ argument: Int, depth: Int
    ) -> Compiled? {
        let info = tape.nodes[argument]
        // Each bucket is a literal only below the depth limit. (A parsed rule cannot reach
        // it: the parser's own limit stops two levels earlier.)
        guard info.kind == .array, info.count > 0, depth + 1 < Self.maximumDepth else { return nil }
        var variants: [JSONValue] = []
        var weights: [Int] = []
        variants.reserveCapacity(Int(info.count))
        weights.reserveCapacity(Int(info.count))
        var total = 0
        var nodes = 0
        for bucket in tape.children(of: argument) {
            let pair = tape.nodes[bucket]
            guard pair.kind == .array, pair.count == 1 || pair.count == 2 else { return nil }
            let variant = bucket + 1
            guard tape.nodes[variant].kind == .scalar else { return nil }
            var weight = 1
            if pair.count == 2 {
                // The variant is a scalar: the weight is the next node.
                guard tape.nodes[variant + 1].kind == .scalar, case .int(let written) = tape.scalar(at: variant + 1),
                    written >= 0
                else { return nil }
                // As `FractionalOperator.weight(of:)` reads it; capped, the total cannot overflow.
                weight = min(written, Int(Int32.max) + 1)
            }
            total += weight
            guard total <= Int(Int32.max) else { return nil }
            variants.append(tape.scalar(at: variant))
            weights.append(weight)
            nodes += 1 + Int(pair.count)
        }
        guard total > 0 else { return nil }
        compiledNodeCount += nodes
        let buckets = FractionalBuckets(variants: variants, weights: weights, totalWeight: total)
        // The operation is one level above its literal buckets, each two levels high.
        return Compiled(expression: .fractional(buckets), height: 3, referenceBound: 0)
    }

    /// The operation, or a node that evaluates common shapes of it with less work (see
    /// ``LogicExpression/membership(_:_:)``, ``LogicExpression/comparison(_:_:_:literalFirst:)`` and
    /// ``LogicExpression/fractional(_:)``).
    /// Same results, same steps counted.
    static func specialized(_ op: LogicOperator, _ arguments: [LogicExpression]) -> LogicExpression {
        if op == .fractional, let buckets = FractionalBuckets(arguments) { return .fractional(buckets) }
        guard arguments.count == 2 else { return .operation(op, arguments) }
        switch op {
        case .in:
            if case .literal(.array(let elements)) = arguments[1] { return .membership(arguments[0], elements) }
        case .equal, .notEqual, .strictEqual, .strictNotEqual:
            switch (arguments[0], arguments[1]) {
            case (.literal, .literal):
                break
            case (let expression, .literal(let value)):
                return .comparison(op, expression, value, literalFirst: false)
            case (.literal(let value), let expression):
                return .comparison(op, expression, value, literalFirst: true)
            default:
                break
            }
        default:
            break
        }
        return .operation(op, arguments)
    }

    /// `{"$ref": name}` sits at `depth` and its evaluator's rule one level below. The rule is
    /// compiled once (from the depth where it is first met, so compiling a long chain stops at
    /// ``maximumDepth`` rather than recursing through all of it) and every later reference reuses it.
    private mutating func resolveReference(_ argument: JSONValue, depth: Int) throws(JSONLogicError) -> Compiled {
        guard case .string(let name) = argument else {
            throw .invalidReference(argument.serialized())
        }
        if let cached = compiledEvaluators[name] {
            guard depth + cached.compiled.height <= Self.maximumDepth else {
                throw .tooDeep(maximum: Self.maximumDepth, through: referenceStack + [name])
            }
            schemaViolations.append(contentsOf: cached.violations)
            return Self.reference(to: cached)
        }
        if referencesInProgress.contains(name) {
            throw .circularReference(referenceStack + [name])
        }
        guard let rule = evaluators[name] else { throw .missingEvaluator(name) }
        referenceStack.append(name)
        referencesInProgress.insert(name)
        let outerViolations = schemaViolations
        schemaViolations = []
        defer {
            referenceStack.removeLast()
            referencesInProgress.remove(name)
        }
        let compiled: Compiled
        do {
            compiled = try compile(rule, depth: depth + 1)
        } catch {
            schemaViolations = outerViolations
            throw error
        }
        let evaluator = CompiledEvaluator(compiled: compiled, slot: compiledEvaluators.count, violations: schemaViolations)
        compiledEvaluators[name] = evaluator
        schemaViolations = outerViolations + evaluator.violations
        return Self.reference(to: evaluator)
    }

    private static func reference(to evaluator: CompiledEvaluator) -> Compiled {
        let compiled = evaluator.compiled
        // A literal needs no evaluation, so no memo slot either.
        if case .literal = compiled.expression {
            return Compiled(expression: compiled.expression, height: compiled.height + 1, referenceBound: 0)
        }
        return Compiled(
            expression: .reference(slot: evaluator.slot, compiled.expression),
            height: compiled.height + 1,
            referenceBound: cappedSum(compiled.referenceBound, 1))
    }

    private mutating func compileVariable(_ argument: JSONValue, depth: Int) throws(JSONLogicError) -> Compiled {
        // The path and the default value: no array is made for the usual `{"var": "name"}`.
        let first: JSONValue?
        let second: JSONValue?
        if case .array(let elements) = argument {
            first = elements.first
            second = elements.count > 1 ? elements[1] : nil
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
            first = argument
            second = nil
            if argument.stringValue == nil {
                note("var: the path must be a string, got \(argument.typeName)")
            }
        }
        if let path = first?.stringValue, path.hasPrefix("$flagd."),
            path != "$flagd.timestamp", path != "$flagd.flagKey"
        {
            note("var: \"\(path)\" is not a flagd property; only $flagd.timestamp and $flagd.flagKey exist")
        }
        let path: VariablePath
        var height = 1
        var references = 0
        switch first {
        case nil, .null?:
            path = .whole
        case .string(let text)?:
            path = text.isEmpty ? .whole : Self.literalPath(text)
        case .int(let number)?:
            path = .key(String(number))
        case .double(let number)?:
            path = Self.literalPath(JavaScriptSemantics.numberToString(number))
        case let other?:
            let computed = try compile(other, depth: depth + 1)
            if case .literal(let value) = computed.expression {
                path = Self.literalPath(JavaScriptSemantics.toJSString(value))
            } else {
                path = .computed(computed.expression)
                height = computed.height + 1
                references = computed.referenceBound
            }
        }
        var defaultValue: LogicExpression?
        if let second {
            let compiled = try compile(second, depth: depth + 1)
            defaultValue = compiled.expression
            height = max(height, compiled.height + 1)
            references = Self.cappedSum(references, compiled.referenceBound)
        }
        return Compiled(expression: .variable(path, defaultValue: defaultValue), height: height, referenceBound: references)
    }

    /// A literal path: one key (other than the two a flag evaluation's context adds), or keys
    /// split at the dots.
    private static func literalPath(_ path: String) -> VariablePath {
        if path.utf8.contains(UInt8(ascii: ".")) { return .keys(splitPath(path)) }
        if path == "targetingKey" || path == "$flagd" { return .keys([path]) }
        return .key(path)
    }

    static func splitPath(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    mutating func note(_ message: String) {
        schemaViolations.append(message)
    }
}
