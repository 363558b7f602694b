/// A compiled JSON Logic rule: operator names resolved, `$ref`s linked to their evaluator's one
/// compiled rule and literal `var` paths split, so evaluation walks this tree and never re-reads
/// JSON.
indirect enum LogicExpression: Sendable {
    /// A value that is not a rule (including objects that are not single-key operations).
    case literal(JSONValue)
    /// An array whose elements are rules, evaluated element by element.
    case array([LogicExpression])
    /// `var`: a data lookup with an optional default.
    case variable(VariablePath, defaultValue: LogicExpression?)
    /// Any other operator with its (unevaluated) arguments.
    case operation(LogicOperator, [LogicExpression])
    /// `{"$ref": name}`: the evaluator's compiled rule, shared by every reference to it. `slot`
    /// numbers the evaluator, so one evaluation computes it once per data scope.
    case reference(slot: Int, LogicExpression)
    /// `in` of two arguments whose second is written as a literal array: the same as
    /// `.operation(.in, [needle, .literal(.array(elements))])`, without building the haystack
    /// value or dispatching on its type.
    case membership(LogicExpression, [JSONValue])
    /// `==`, `!=`, `===` or `!==` of two arguments, one of them a literal: the same as the
    /// operation, comparing with the literal in place. `literalFirst` keeps the written order.
    case comparison(LogicOperator, LogicExpression, JSONValue, literalFirst: Bool)
    /// `fractional` with literal buckets, their weights read when the rule compiled: the same
    /// as the operation.
    case fractional(FractionalBuckets)
}

/// The path of a `var` lookup.
enum VariablePath: Sendable {
    /// `""`, `null` or no path: the whole data.
    case whole
    /// A literal path of one key (no dot) other than `targetingKey` and `$flagd`: the same as
    /// `.keys([key])`, looked up among the context's attributes without checking for those two.
    case key(String)
    /// A literal dotted path, already split.
    case keys([String])
    /// A path computed by a rule at evaluation time.
    case computed(LogicExpression)
}
