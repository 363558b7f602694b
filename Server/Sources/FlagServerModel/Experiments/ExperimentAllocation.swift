public import FlagEvaluation

/// How a flag assigned units to arms when an experiment started: its serving rule's fractional
/// split (the buckets with their weights and the bucketing value), the condition the split sits
/// behind (`{"if": [condition, {"fractional": …}, …]}`) with the segments that condition refers
/// to, and the values of the split's variants. While the experiment runs, a write that would give
/// another allocation is refused (see ``ExperimentGuard``).
public struct ExperimentAllocation: Sendable, Hashable, Codable {
    /// One variant's share of the split.
    public struct Bucket: Sendable, Hashable, Codable {
        /// The variant a unit in this bucket is served.
        public var variant: String
        /// The bucket's relative weight (the split's share is its weight over the sum of all weights).
        public var weight: Int
    }

    /// The split's buckets, in the rule's order.
    public var buckets: [Bucket]
    /// flagd's bucketing value (the first argument of `fractional` when it is not a bucket: a
    /// salted key such as `{"cat": ["salt-", {"var": "targetingKey"}]}`); `nil` for the default
    /// (the flag key and the targeting key).
    public var bucketing: JSONValue?
    /// The condition a unit must match to enter the split; `nil` when the split is the whole rule.
    public var condition: JSONValue?
    /// The segments (`{"$ref": name}`) the condition or the bucketing value refer to, as defined.
    public var segments: [String: JSONValue]
    /// The values of the split's variants.
    public var variants: [String: JSONValue]

    /// An allocation of `buckets`; the other parts default to a whole-rule split bucketed on the flag and targeting keys.
    public init(
        buckets: [Bucket], bucketing: JSONValue? = nil, condition: JSONValue? = nil, segments: [String: JSONValue] = [:],
        variants: [String: JSONValue] = [:]
    ) {
        self.buckets = buckets
        self.bucketing = bucketing
        self.condition = condition
        self.segments = segments
        self.variants = variants
    }

    /// The allocation `flag` serves with in `environment`; `nil` when the flag or environment does
    /// not exist, the flag is archived, or its rule is not a fractional split (alone or as the
    /// first branch of an `if`) with literal variant names and numeric weights.
    public static func current(flag key: String, environment: String, in state: ServerState) -> ExperimentAllocation? {
        guard let flag = state.flags[key], !flag.archived, let env = state.environments[environment],
            let settings = env.settings[key], let targeting = settings.targeting
        else { return nil }
        var condition: JSONValue?
        var split = targeting
        if case .array(let branches)? = targeting["if"], branches.count >= 2, branches[1]["fractional"] != nil {
            condition = branches[0]
            split = branches[1]
        }
        guard case .object(let members) = split, members.count == 1, case .array(let arguments)? = members["fractional"],
            !arguments.isEmpty
        else { return nil }
        var bucketing: JSONValue?
        var rest = arguments[...]
        if case .array = arguments[0] {} else {
            bucketing = arguments[0]
            rest = arguments.dropFirst()
        }
        var buckets: [Bucket] = []
        for argument in rest {
            guard case .array(let pair) = argument, (1...2).contains(pair.count), let variant = pair[0].stringValue else { return nil }
            let weight: Int
            if pair.count == 2 {
                guard let number = pair[1].doubleValue, number.isFinite, abs(number) < 1e12 else { return nil }
                weight = max(0, Int(number))
            } else {
                weight = 1
            }
            buckets.append(Bucket(variant: variant, weight: weight))
        }
        guard !buckets.isEmpty else { return nil }
        var segments: [String: JSONValue] = [:]
        for name in references(in: condition) + references(in: bucketing) {
            segments[name] = env.segments[name] ?? .null
        }
        var variants: [String: JSONValue] = [:]
        for bucket in buckets { variants[bucket.variant] = flag.variants[bucket.variant] ?? .null }
        return ExperimentAllocation(buckets: buckets, bucketing: bucketing, condition: condition, segments: segments, variants: variants)
    }

    /// The segment names written in `rule` (`{"$ref": name}`); segments those segments refer to
    /// are not followed.
    static func references(in rule: JSONValue?) -> [String] {
        switch rule {
        case .object(let members)?:
            var names: [String] = []
            if let name = members["$ref"]?.stringValue { names.append(name) }
            for (_, value) in members.sorted(by: { $0.key < $1.key }) { names += references(in: value) }
            return names
        case .array(let items)?: return items.flatMap { references(in: $0) }
        default: return []
        }
    }

    /// The weight of `arm` (the sum over its buckets).
    public func weight(of arm: String) -> Int { buckets.filter { $0.variant == arm }.map(\.weight).reduce(0, +) }

    /// Each arm's share of the units that enter the experiment (the arms' weights normalized over
    /// the arms; buckets of other variants are outside the experiment).
    public func shares(of arms: [String]) -> [String: Double] {
        let total = arms.map(weight(of:)).reduce(0, +)
        guard total > 0 else { return [:] }
        var shares: [String: Double] = [:]
        for arm in arms { shares[arm] = Double(weight(of: arm)) / Double(total) }
        return shares
    }

    /// What differs from `other`, in words ("the weights", "the segment condition"), for the
    /// guard's message.
    package func differences(from other: ExperimentAllocation?) -> [String] {
        guard let other else { return ["the fractional split (the rule no longer is one, or the flag is gone)"] }
        var words: [String] = []
        if buckets.map(\.variant) != other.buckets.map(\.variant) { words.append("the split's variants") }
        else if buckets != other.buckets { words.append("the split's weights") }
        if bucketing != other.bucketing { words.append("the bucketing value") }
        if condition != other.condition { words.append("the segment condition") }
        if segments != other.segments { words.append("the segments it refers to") }
        if variants != other.variants { words.append("the variants' values") }
        return words
    }
}
