/// What flagd's operators need beyond the data in scope: the flag being evaluated, the caller's
/// targeting key and the bucketing algorithm for `fractional`. Fixed for one evaluation.
struct LogicEnvironment: Sendable {
    private let givenFlagKey: String?
    private let givenTargetingKey: String?
    /// Plain data to read the keys from, only when `fractional` asks (most rules never do).
    private let data: JSONValue?
    let bucketing: FractionalBucketing

    /// Reads the flag key and targeting key from plain data the way flagd lays them out
    /// (`$flagd.flagKey` and `targetingKey`), for rules evaluated outside a flag.
    init(data: JSONValue, bucketing: FractionalBucketing) {
        self.givenFlagKey = nil
        self.givenTargetingKey = nil
        self.data = data
        self.bucketing = bucketing
    }

    init(flagKey: String, targetingKey: String?, bucketing: FractionalBucketing) {
        self.givenFlagKey = flagKey
        self.givenTargetingKey = targetingKey
        self.data = nil
        self.bucketing = bucketing
    }

    var flagKey: String? {
        guard let data else { return givenFlagKey }
        return data["$flagd"]?["flagKey"]?.stringValue
    }

    var targetingKey: String? {
        guard let data else { return givenTargetingKey }
        return data["targetingKey"]?.stringValue
    }
}
