/// The data a rule reads with `var`.
///
/// At the top of a flag evaluation this is the evaluation context seen as flagd builds it
/// (attributes, `targetingKey`, and a `$flagd` object with `flagKey` and `timestamp`), looked up
/// without first copying the attributes into a new dictionary. Inside `map`, `filter`, `reduce`,
/// `all`, `none` and `some` it is the current element.
enum LogicData: Sendable {
    case value(JSONValue)
    case context(EvaluationContext, flagKey: String, timestamp: Int64)

    /// The whole data as one JSON value.
    var wholeValue: JSONValue {
        switch self {
        case .value(let value):
            return value
        case .context(let context, let flagKey, let timestamp):
            var members = context.attributes
            if let targetingKey = context.targetingKey { members["targetingKey"] = .string(targetingKey) }
            members["$flagd"] = Self.flagdProperties(flagKey: flagKey, timestamp: timestamp)
            return .object(members)
        }
    }

    /// How many members ``wholeValue`` builds (0 when it builds nothing), for the budget.
    var wholeValueSize: Int {
        switch self {
        case .value: 0
        case .context(let context, _, _): context.attributes.count + 2
        }
    }

    /// Follows `keys` through objects (by key) and arrays (by decimal index); `nil` when some
    /// step does not exist (JavaScript's `undefined`).
    func lookUp(_ keys: [String]) -> JSONValue? {
        guard let first = keys.first else { return wholeValue }
        var current: JSONValue
        switch self {
        case .value(let value):
            guard let found = Self.member(first, of: value) else { return nil }
            current = found
        case .context(let context, let flagKey, let timestamp):
            if first == "targetingKey", let targetingKey = context.targetingKey {
                current = .string(targetingKey)
            } else if first == "$flagd" {
                current = Self.flagdProperties(flagKey: flagKey, timestamp: timestamp)
            } else if let found = Self.member(first, in: context.attributes) {
                current = found
            } else {
                return nil
            }
        }
        for key in keys.dropFirst() {
            guard let found = Self.member(key, of: current) else { return nil }
            current = found
        }
        return current
    }

    /// `lookUp([key])` for the most common path: one key, neither `targetingKey` nor `$flagd`
    /// (the compiler keeps those as ``VariablePath/keys(_:)``).
    func lookUp(key: String) -> JSONValue? {
        switch self {
        case .value(let value): Self.member(key, of: value)
        case .context(let context, _, _): Self.member(key, in: context.attributes)
        }
    }

    /// The `$flagd` object flagd adds to the data: the flag key and the Unix time in seconds.
    static func flagdProperties(flagKey: String, timestamp: Int64) -> JSONValue {
        .object(["flagKey": .string(flagKey), "timestamp": timestampValue(timestamp)])
    }

    /// Unix seconds as a JSON number: an integer where `Int` (of `intBitWidth` bits) holds them, a
    /// double otherwise, exact for any date within 2^53 seconds. A 32-bit `Int` (Apple Watch's
    /// arm64_32) cannot hold a time after January 2038; the double keeps comparisons right.
    static func timestampValue(_ seconds: Int64, intBitWidth: Int = Int.bitWidth) -> JSONValue {
        let limit = intBitWidth >= 64 ? Int64.max : (Int64(1) << (intBitWidth - 1)) - 1
        guard seconds <= limit, seconds >= -limit - 1 else { return .double(Double(seconds)) }
        return .int(Int(seconds))
    }

    /// `members[key]`, found by comparing keys when there are few: comparing short strings costs
    /// less than hashing one, and contexts usually carry a handful of attributes.
    @inline(__always)
    static func member(_ key: String, in members: [String: JSONValue]) -> JSONValue? {
        if members.count > 8 { return members[key] }
        var index = members.startIndex
        while index != members.endIndex {
            if members.keys[index] == key { return members.values[index] }
            members.formIndex(after: &index)
        }
        return nil
    }

    private static func member(_ key: String, of value: JSONValue) -> JSONValue? {
        switch value {
        case .object(let members):
            return member(key, in: members)
        case .array(let elements):
            guard let index = Int(key), index >= 0, index < elements.count, String(index) == key else { return nil }
            return elements[index]
        default:
            return nil
        }
    }
}
