/// What flagd's operators need beyond the data in scope: the flag being evaluated, the caller's
/// targeting key and the bucketing algorithm for `fractional`. Fixed for one evaluation.
struct LogicEnvironment: Sendable {
    var flagKey: String?
    var targetingKey: String?
    var bucketing: FractionalBucketing

    /// Reads the flag key and targeting key from plain data the way flagd lays them out
    /// (`$flagd.flagKey` and `targetingKey`), for rules evaluated outside a flag.
    init(data: JSONValue, bucketing: FractionalBucketing) {
        self.flagKey = data["$flagd"]?["flagKey"]?.stringValue
        self.targetingKey = data["targetingKey"]?.stringValue
        self.bucketing = bucketing
    }

    init(flagKey: String, targetingKey: String?, bucketing: FractionalBucketing) {
        self.flagKey = flagKey
        self.targetingKey = targetingKey
        self.bucketing = bucketing
    }
}
