/// The values a numeric flag accepts, declared with the flag:
///
/// ```swift
/// static let pageSize = TypedFlag<Int>("page_size", default: 50, range: 1...500)
/// ```
///
/// A remote value, override or user preference outside the range is refused like a value of the
/// wrong type (the layer below wins, and the refusal is reported with the range); it is never
/// clamped. The default and the build defaults must lie in the range, or building the registry
/// fails.
public enum FlagValueRange: Sendable, Hashable, CustomStringConvertible {
    /// Bounds of an `integer` flag.
    case integer(ClosedRange<Int>)
    /// Bounds of a `double` flag.
    case double(ClosedRange<Double>)

    /// The flag type the range is for.
    public var valueType: FlagValueType {
        switch self {
        case .integer: .integer
        case .double: .double
        }
    }

    /// Whether `value` is a number within the bounds.
    public func contains(_ value: FlagValue) -> Bool {
        switch self {
        case .integer(let range): value.intValue.map(range.contains) ?? false
        case .double(let range): value.doubleValue.map(range.contains) ?? false
        }
    }

    /// The bounds as Swift writes them: `1...500`, `0.5...2.0`.
    public var description: String {
        switch self {
        case .integer(let range): "\(range.lowerBound)...\(range.upperBound)"
        case .double(let range): "\(range.lowerBound)...\(range.upperBound)"
        }
    }
}
