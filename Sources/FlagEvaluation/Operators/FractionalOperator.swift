/// flagd's `fractional` operator: deterministic, weighted assignment of a subject to a bucket.
///
/// Arguments (already evaluated): an optional bucketing key (a string), then buckets
/// `[variant]` or `[variant, weight]`. Without a key, flagd hashes the flag key followed by the
/// targeting key. A missing weight counts as 1, computed weights are truncated to integers and
/// negative ones count as 0. The result is the chosen bucket's variant value (usually a variant
/// name, but any value, so `fractional` can also feed an `if`); `null` when the input is unusable
/// (no key, a bucket that is not an array, a weight that is not a number, all weights 0, or a
/// total above `Int32.max`).
enum FractionalOperator {
    static func evaluate(_ arguments: [JSONValue], _ environment: LogicEnvironment) -> JSONValue {
        guard let first = arguments.first else { return .null }
        let key: String
        let bucketArguments: ArraySlice<JSONValue>
        switch first {
        case .string(let bucketingKey):
            key = bucketingKey
            bucketArguments = arguments.dropFirst()
        case .array:
            guard let flagKey = environment.flagKey, let targetingKey = environment.targetingKey else { return .null }
            key = flagKey + targetingKey
            bucketArguments = arguments[...]
        default:
            return .null
        }
        guard !bucketArguments.isEmpty else { return .null }

        var buckets: [(variant: JSONValue, weight: Int)] = []
        buckets.reserveCapacity(bucketArguments.count)
        var totalWeight = 0
        for argument in bucketArguments {
            guard case .array(let pair) = argument, (1...2).contains(pair.count) else { return .null }
            var weight = 1
            if pair.count == 2 {
                guard let number = pair[1].doubleValue, !number.isNaN else { return .null }
                weight = number <= 0 ? 0 : Int(min(number, Double(Int32.max) + 1).rounded(.towardZero))
            }
            totalWeight += weight
            guard totalWeight <= Int(Int32.max) else { return .null }
            buckets.append((pair[0], weight))
        }
        guard totalWeight > 0 else { return .null }

        let hash = MurmurHash3.hash32(key.utf8)
        switch environment.bucketing {
        case .current:
            let bucket = (UInt64(hash) * UInt64(totalWeight)) >> 32
            var cumulative: UInt64 = 0
            for (variant, weight) in buckets {
                cumulative += UInt64(weight)
                if bucket < cumulative { return variant }
            }
        case .legacy:
            let ratio = abs(Double(Int32(bitPattern: hash))) / Double(Int32.max)
            let bucket = ratio * 100
            var rangeEnd = 0.0
            for (variant, weight) in buckets {
                rangeEnd += Double(weight) * 100 / Double(totalWeight)
                if bucket < rangeEnd { return variant }
            }
        }
        return .null
    }
}
