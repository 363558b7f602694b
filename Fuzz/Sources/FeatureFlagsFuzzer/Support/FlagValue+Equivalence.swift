import FeatureFlags

extension FlagValue {
    /// Whether two values are the same JSON: equal structure and strings, numbers equal by value
    /// (`.int(2)` and `.double(2)` are both the JSON number 2).
    func isSameJSON(as other: FlagValue) -> Bool {
        switch (self, other) {
        case (.int(let integer), .double(let double)), (.double(let double), .int(let integer)):
            return Int(exactly: double) == integer
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isSameJSON(as: $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && left.allSatisfy { key, value in right[key].map(value.isSameJSON(as:)) ?? false }
        default:
            return self == other
        }
    }

    /// Whether every number in the value is finite (JSON cannot write the others).
    var isFinite: Bool {
        switch self {
        case .double(let value): value.isFinite
        case .array(let elements): elements.allSatisfy(\.isFinite)
        case .object(let members): members.values.allSatisfy(\.isFinite)
        default: true
        }
    }
}

extension FlagValue {
    /// The value with its cases spelled out (`double(inf)`), where `description` writes JSON.
    var dump: String {
        switch self {
        case .null: "null"
        case .bool(let value): "bool(\(value))"
        case .int(let value): "int(\(value))"
        case .double(let value): "double(\(value))"
        case .string(let value): "string(\(value.debugDescription))"
        case .array(let elements): "[" + elements.map(\.dump).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.keys.sorted().map { "\($0.debugDescription): \(members[$0]!.dump)" }.joined(separator: ", ") + "}"
        }
    }
}
