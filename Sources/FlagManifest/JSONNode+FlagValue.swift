import FeatureFlags

extension JSONNode {
    /// The node as a flag value (a repeated object key keeps its last value).
    public var flagValue: FlagValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .integer(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(\.flagValue))
        case .object(let members):
            .object(Dictionary(members.map { ($0.key, $0.value.flagValue) }, uniquingKeysWith: { _, last in last }))
        }
    }
}
