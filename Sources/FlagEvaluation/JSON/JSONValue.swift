/// A JSON value, as read from flag definitions, evaluation contexts and rule results.
///
/// Numbers remember whether they were written as integers: `1` is ``int(_:)`` and `1.0` or `1e3`
/// is ``double(_:)``, so integer flag values stay exact. Equality compares numbers by value, so
/// `.int(1) == .double(1.0)`.
///
/// ```swift
/// let value = try JSONValue(parsing: #"{"enabled": true, "limit": 10}"#)
/// value["limit"]          // .int(10)
/// value.serialized()      // {"enabled":true,"limit":10}
/// ```
public enum JSONValue: Sendable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number. May be non-finite as the result of arithmetic; it serializes as `null`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Key order is not kept; serialization sorts keys.
    case object([String: JSONValue])
}

extension JSONValue {
    /// The member `key` of an object, or `nil` for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Whether this is a number (integer or floating point).
    public var isNumber: Bool {
        switch self {
        case .int, .double: true
        default: false
        }
    }

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The Boolean payload, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The numeric value as a `Double`, if this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The numeric value as an exact `Int`: an integer, or a floating-point number with no fraction
    /// that fits in `Int`.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// A short name of the JSON type, for messages: `null`, `boolean`, `number`, `string`, `array`
    /// or `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int, .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

extension JSONValue: Equatable {
    /// Structural equality; numbers compare by value, so `.int(1) == .double(1)`.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.int, .double), (.double, .int), (.double, .double): lhs.doubleValue == rhs.doubleValue
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }
}

extension JSONValue: Hashable {
    /// Hashes the value so that equal numbers hash alike whether held as `.int` or `.double`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .int, .double:
            // Equal numbers must hash alike whatever their case.
            hasher.combine(2)
            hasher.combine(doubleValue ?? 0)
        case .string(let value):
            hasher.combine(3)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(4)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5)
            hasher.combine(value)
        }
    }
}
