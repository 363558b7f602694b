/// The declared type of a flag's value.
///
/// The names follow the OpenFeature evaluation types; `object` covers any JSON structure,
/// which is how `Codable` values travel.
public enum FlagValueType: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// `true` or `false`.
    case boolean
    /// A whole number (`Int`).
    case integer
    /// A floating-point number (`Double`); integers are accepted.
    case double
    /// Text.
    case string
    /// Any JSON structure: what `Codable` values travel as.
    case object

    /// The type's name: `boolean`, `integer`, `double`, `string` or `object`.
    public var description: String { rawValue }

    /// The name with its indefinite article, for messages: "a boolean", "an integer".
    public var nameWithArticle: String {
        switch self {
        case .integer, .object: "an \(rawValue)"
        case .boolean, .double, .string: "a \(rawValue)"
        }
    }
}
