/// flagd's `fractional` operator: deterministic, weighted assignment of a subject to a bucket.
///
/// Arguments (already evaluated): an optional bucketing key (a string), then buckets
/// `[variant]` or `[variant, weight]`. Without a key, flagd hashes the flag key followed by the
/// targeting key. A missing weight counts as 1, computed weights are truncated to integers and
/// negative ones count as 0. The result is the chosen bucket's variant value (usually a variant
/// name, but any value, so `fractional` can also feed an `if`); `null` when the input is unusable
/// (no key, a bucket that is not an array, a weight that is not a number, all weights 0, or a
/// total above `Int32.max`).
///
/// With ``FractionalBucketing/v3`` the first argument is the bucketing value whenever it is not
/// written as an array (a rule or a literal), and any JSON value but `null` buckets: it is hashed
/// as deterministic CBOR, numbers without a fractional part as integers (as flagd does); the shorthand hashes the CBOR array `[flagKey, targetingKey]` and needs
/// a targeting key that is not empty.
///
/// It allocates nothing of its own (except to sort an object's keys under v3): the key is
/// hashed in pieces and the weights are kept on the stack (rollouts are evaluated on every request
/// of a server).
enum FractionalOperator {
    /// Evaluates each argument once, and the chosen bucket a second time. Under v3 the first
    /// argument is the bucketing value when it is written as something other than an array.
    /// `first` is the first argument's value when the caller has already evaluated it.
    static func evaluate(
        _ arguments: [LogicExpression], _ data: LogicData, _ environment: LogicEnvironment,
        _ state: inout EvaluationState, first: JSONValue? = nil
    ) -> JSONValue {
        let count = arguments.count
        guard count > 0 else { return .null }
        func argument(_ index: Int) -> JSONValue {
            arguments[index].evaluate(data, environment, &state)
        }
        let firstIsBucketingValue = !arguments[0].isWrittenAsArray
        var hasher = MurmurHash3()
        let firstBucket: Int
        if environment.bucketing == .v3 {
            if firstIsBucketingValue {
                guard hashV3(bucketingValue: argument(0), into: &hasher) else { return .null }
                firstBucket = 1
            } else {
                guard hashShorthand(environment, into: &hasher) else { return .null }
                firstBucket = 0
            }
        } else {
            switch first ?? argument(0) {
            case .string(let bucketingKey):
                hasher.combine(bucketingKey.utf8)
                firstBucket = 1
            case .array:
                guard hashShorthand(environment, into: &hasher) else { return .null }
                firstBucket = 0
            default:
                return .null
            }
        }
        let bucketCount = count - firstBucket
        guard bucketCount > 0 else { return .null }

        return withUnsafeTemporaryAllocation(of: Int.self, capacity: bucketCount) { weights in
            var totalWeight = 0
            for bucket in 0..<bucketCount {
                guard let weight = weight(of: argument(firstBucket + bucket)) else { return .null }
                weights[bucket] = weight
                totalWeight += weight
                guard totalWeight <= Int(Int32.max) else { return .null }
            }
            guard totalWeight > 0,
                let chosen = choose(hasher.finalize(), UnsafeBufferPointer(weights), totalWeight, environment.bucketing)
            else { return .null }
            guard case .array(let pair) = argument(firstBucket + chosen) else { return .null }
            return pair[0]
        }
    }

    /// Hashes a v3 bucketing value (its deterministic CBOR); `false` for null, which buckets nothing.
    @inline(__always)
    static func hashV3(bucketingValue value: JSONValue, into hasher: inout MurmurHash3) -> Bool {
        if case .null = value { return false }
        DeterministicCBOR.write(value, to: &hasher, integralFloatsAsIntegers: true)
        return true
    }

    /// Hashes the shorthand's bucketing key, the flag key and the targeting key, as the
    /// environment's bucketing does; `false` when either key is missing (or, in v3, the targeting
    /// key is empty: flagd's v3 refuses the shorthand for it, as for a missing one).
    @inline(__always)
    static func hashShorthand(_ environment: LogicEnvironment, into hasher: inout MurmurHash3) -> Bool {
        guard let flagKey = environment.flagKey, let targetingKey = environment.targetingKey else { return false }
        if environment.bucketing == .v3 {
            guard !targetingKey.isEmpty else { return false }
            DeterministicCBOR.writeHead(major: 4, 2, to: &hasher)
            DeterministicCBOR.writeText(flagKey, to: &hasher)
            DeterministicCBOR.writeText(targetingKey, to: &hasher)
        } else {
            hasher.combine(flagKey.utf8)
            hasher.combine(targetingKey.utf8)
        }
        return true
    }

    /// ``FractionalBuckets``: the same result and the same steps counted as the general
    /// operator on the same arguments, without evaluating the literal buckets.
    static func evaluate(
        _ buckets: FractionalBuckets, _ data: LogicData, _ environment: LogicEnvironment,
        _ state: inout EvaluationState
    ) -> JSONValue {
        var hasher = MurmurHash3()
        if environment.bucketing == .v3 {
            if buckets.hasBucketingValue {
                let value = buckets.arguments[0].evaluate(data, environment, &state)
                guard hashV3(bucketingValue: value, into: &hasher) else { return .null }
            } else {
                guard hashShorthand(environment, into: &hasher) else { return .null }
            }
        } else if buckets.hasBucketingValue {
            let value = buckets.arguments[0].evaluate(data, environment, &state)
            switch value {
            case .string(let bucketingKey):
                hasher.combine(bucketingKey.utf8)
            case .array:
                // The value is then the first bucket: the general operator's case.
                return evaluate(buckets.arguments, data, environment, &state, first: value)
            default:
                return .null
            }
        } else {
            // The general operator evaluates the first bucket to see that it is an array.
            guard state.step(), hashShorthand(environment, into: &hasher) else { return .null }
        }
        // Each bucket once, and the chosen one again.
        for _ in 0...buckets.variants.count {
            guard state.step() else { return .null }
        }
        let chosen = buckets.weights.withUnsafeBufferPointer { weights in
            choose(hasher.finalize(), weights, buckets.totalWeight, environment.bucketing)
        }
        guard let chosen else { return .null }
        return buckets.variants[chosen]
    }

    /// A bucket's weight, or `nil` when the bucket is malformed.
    static func weight(of bucket: JSONValue) -> Int? {
        guard case .array(let pair) = bucket, (1...2).contains(pair.count) else { return nil }
        guard pair.count == 2 else { return 1 }
        guard let number = pair[1].doubleValue, !number.isNaN else { return nil }
        return number <= 0 ? 0 : Int(min(number, Double(Int32.max) + 1).rounded(.towardZero))
    }

    /// The index of the bucket `hash` falls in.
    private static func choose(
        _ hash: UInt32, _ weights: UnsafeBufferPointer<Int>, _ totalWeight: Int, _ bucketing: FractionalBucketing
    ) -> Int? {
        switch bucketing {
        case .current, .v3:
            let bucket = (UInt64(hash) * UInt64(totalWeight)) >> 32
            var cumulative: UInt64 = 0
            for (index, weight) in weights.enumerated() {
                cumulative += UInt64(weight)
                if bucket < cumulative { return index }
            }
        case .legacy:
            let ratio = abs(Double(Int32(bitPattern: hash))) / Double(Int32.max)
            let bucket = ratio * 100
            var rangeEnd = 0.0
            for (index, weight) in weights.enumerated() {
                rangeEnd += Double(weight) * 100 / Double(totalWeight)
                if bucket < rangeEnd { return index }
            }
        }
        return nil
    }
}
