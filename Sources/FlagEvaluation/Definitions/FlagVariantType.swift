/// The JSON type shared by all variants of a flag.
public enum FlagVariantType: String, Sendable, Hashable, CaseIterable {
    /// `true` and `false`.
    case boolean
    /// Strings.
    case string
    /// Numbers, whole or not.
    case number
    /// JSON objects.
    case object

    init?(of value: JSONValue) {
        switch value {
        case .bool: self = .boolean
        case .string: self = .string
        case .int, .double: self = .number
        case .object: self = .object
        case .null, .array: return nil
        }
    }
}
