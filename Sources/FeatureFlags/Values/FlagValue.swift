/// A flag's value as it travels between layers, stores and providers: a JSON-shaped value.
///
/// Booleans, integers, doubles and strings cover most flags; arrays and objects carry
/// `Codable` configuration values. Typed reads go through ``FlagValueConvertible``.
///
/// ```swift
/// let values: [String: FlagValue] = ["chat_view_redesign": true, "page_size": 50]
/// ```
public enum FlagValue: Sendable, Hashable {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([FlagValue])
    case object([String: FlagValue])
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
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: FlagValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, FlagValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension FlagValue: CustomStringConvertible {
    /// The value as compact JSON with sorted keys, for logs, tables and the debug menu.
    public var description: String { jsonString }
}
