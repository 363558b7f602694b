/// A `fractional` whose buckets are all written as literal `[variant]` or `[variant, weight]`
/// arrays (the usual rollout): the weights are read once when the rule compiles, so an
/// evaluation only hashes and picks (`FractionalOperator.evaluate(_:_:_:_:)` for these).
final class FractionalBuckets: Sendable {
    /// The arguments as written, for the general operator when the bucketing value turns out to
    /// be an array; empty without a bucketing value (they are then never evaluated).
    let arguments: [LogicExpression]
    /// Whether the first argument is a bucketing value (not written as an array).
    let hasBucketingValue: Bool
    /// Each bucket's variant value, in order.
    let variants: [JSONValue]
    let weights: [Int]
    let totalWeight: Int

    /// `nil` unless every bucket is a literal array with a usable weight and the weights add up
    /// to between 1 and `Int32.max` (anything else is left to the general operator, which gives
    /// `null` for it).
    init?(_ arguments: [LogicExpression]) {
        guard let first = arguments.first else { return nil }
        let hasBucketingValue = !first.isWrittenAsArray
        let buckets = hasBucketingValue ? arguments.dropFirst() : arguments[...]
        guard !buckets.isEmpty else { return nil }
        var variants: [JSONValue] = []
        var weights: [Int] = []
        variants.reserveCapacity(buckets.count)
        weights.reserveCapacity(buckets.count)
        var total = 0
        for bucket in buckets {
            guard case .literal(let value) = bucket, case .array(let pair) = value,
                let weight = FractionalOperator.weight(of: value)
            else { return nil }
            variants.append(pair[0])
            weights.append(weight)
            total += weight
            guard total <= Int(Int32.max) else { return nil }
        }
        guard total > 0 else { return nil }
        self.arguments = arguments
        self.hasBucketingValue = hasBucketingValue
        self.variants = variants
        self.weights = weights
        self.totalWeight = total
    }

    /// Buckets without a bucketing value, read straight from a rule's text (the compiler
    /// checks that each weight is usable and the total is between 1 and `Int32.max`).
    init(variants: [JSONValue], weights: [Int], totalWeight: Int) {
        self.arguments = []
        self.hasBucketingValue = false
        self.variants = variants
        self.weights = weights
        self.totalWeight = totalWeight
    }
}
