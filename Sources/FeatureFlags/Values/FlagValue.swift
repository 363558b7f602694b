/// A flag's value as it travels between layers, stores and providers: a JSON-shaped value.
///
/// Booleans, integers, doubles and strings cover most flags; arrays and objects carry
/// `Codable` configuration values. Typed reads go through ``FlagValueConvertible``.
///
/// ```swift
/// let values: [String: FlagValue] = ["chat_view_redesign": true, "page_size": 50]
/// ```
public enum FlagValue: Sendable, Hashable {
    /// A Boolean.
    case bool(Bool)
    /// A whole number.
    case int(Int)
    /// A floating-point number; finite (decoding refuses infinity and NaN).
    case double(Double)
    /// A string.
    case string(String)
    /// A JSON array.
    case array([FlagValue])
    /// A JSON object, by member name.
    case object([String: FlagValue])
    /// JSON `null`: no value.
    case null

    /// The value's type, or `nil` for `null`.
    public var valueType: FlagValueType? {
        switch self {
        case .bool: .boolean
        case .int: .integer
        case .double: .double
        case .string: .string
        case .array, .object: .object
        case .null: nil
        }
    }

    /// Whether this is `true`: a read in place, without copying the value (which an `if case`
    /// on an array element does, through an outlined copy, in generic callers).
    @inlinable
    var isTrue: Bool {
        if case .bool(true) = self { true } else { false }
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The integer, if this is one (or a double with an exact integer value).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value)
        default: nil
        }
    }

    /// The number as a double, if this is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// Whether this value can stand for a flag of `type` (an integer can stand for a double,
    /// an integral double for an integer, and any JSON value but `null` for an object).
    public func conforms(to type: FlagValueType) -> Bool {
        switch (type, self) {
        case (.boolean, .bool), (.string, .string), (.double, .int), (.double, .double),
            (.integer, .int), (.object, .array), (.object, .object):
            true
        case (.integer, .double(let value)):
            Int(exactly: value) != nil
        default:
            false
        }
    }

    /// This value normalised to `type` (for example `.double(20)` for an integer flag becomes
    /// `.int(20)`), or `nil` when it does not conform.
    public func normalized(to type: FlagValueType) -> FlagValue? {
        switch type {
        case .integer: intValue.map(FlagValue.int)
        case .double: doubleValue.map(FlagValue.double)
        default: conforms(to: type) ? self : nil
        }
    }
}

extension FlagValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// `true` or `false` written as a flag value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A whole number written as a flag value.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A floating-point number written as a flag value.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string written as a flag value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array written as a flag value.
    public init(arrayLiteral elements: FlagValue...) { self = .array(elements) }
    /// An object written as a flag value; of repeated keys, the last wins.
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension FlagValue: CustomStringConvertible {
    /// The value as compact JSON with sorted keys, for logs, tables and the debug menu.
    public var description: String { jsonString }
}
