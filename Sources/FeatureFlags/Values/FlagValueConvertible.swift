import Foundation

/// A Swift type that a flag's value can have.
///
/// `Bool`, `Int`, `Double` and `String` conform already. A `RawRepresentable` enum whose raw
/// value conforms only has to declare the conformance:
///
/// ```swift
/// enum ComposerStyle: String, FlagValueConvertible {
///     case classic, compact
/// }
/// ```
///
/// A `Codable` struct adopts ``CodableFlagValue`` instead.
public protocol FlagValueConvertible: Sendable, Equatable {
    /// The type this value has in flag files, payloads and the debug menu.
    static var flagValueType: FlagValueType { get }
    /// Creates the value from its flag representation, or fails when it does not fit.
    init?(flagValue: FlagValue)
    /// The flag representation of the value.
    var flagValue: FlagValue { get }
}

extension Bool: FlagValueConvertible {
    /// ``FlagValueType/boolean``.
    public static var flagValueType: FlagValueType { .boolean }
    /// The Boolean `flagValue` holds; `nil` for any other value.
    public init?(flagValue: FlagValue) {
        guard let value = flagValue.boolValue else { return nil }
        self = value
    }
    /// ``FlagValue/bool(_:)`` of this value.
    public var flagValue: FlagValue { .bool(self) }
}

extension Int: FlagValueConvertible {
    /// ``FlagValueType/integer``.
    public static var flagValueType: FlagValueType { .integer }
    /// The integer `flagValue` holds, also from a double with an exact integer value; `nil` otherwise.
    public init?(flagValue: FlagValue) {
        guard let value = flagValue.intValue else { return nil }
        self = value
    }
    /// ``FlagValue/int(_:)`` of this value.
    public var flagValue: FlagValue { .int(self) }
}

extension Double: FlagValueConvertible {
    /// ``FlagValueType/double``.
    public static var flagValueType: FlagValueType { .double }
    /// The number `flagValue` holds, integers included; `nil` for any other value.
    public init?(flagValue: FlagValue) {
        guard let value = flagValue.doubleValue else { return nil }
        self = value
    }
    /// ``FlagValue/double(_:)`` of this value.
    public var flagValue: FlagValue { .double(self) }
}

extension String: FlagValueConvertible {
    /// ``FlagValueType/string``.
    public static var flagValueType: FlagValueType { .string }
    /// The string `flagValue` holds; `nil` for any other value.
    public init?(flagValue: FlagValue) {
        guard let value = flagValue.stringValue else { return nil }
        self = value
    }
    /// ``FlagValue/string(_:)`` of this value.
    public var flagValue: FlagValue { .string(self) }
}

extension FlagValueConvertible where Self: RawRepresentable, RawValue: FlagValueConvertible {
    /// The raw value's type: an enum with `String` raw values is a string flag.
    public static var flagValueType: FlagValueType { RawValue.flagValueType }
    /// The case whose raw value `flagValue` holds; `nil` when no case has it.
    public init?(flagValue: FlagValue) {
        guard let raw = RawValue(flagValue: flagValue) else { return nil }
        self.init(rawValue: raw)
    }
    /// The raw value's flag representation.
    public var flagValue: FlagValue { rawValue.flagValue }
}

/// A `Codable` value carried by a flag as a JSON object.
///
/// ```swift
/// struct RetryPolicy: CodableFlagValue {
///     var attempts: Int
///     var backoffSeconds: Double
/// }
/// ```
///
/// The value is decoded once whenever it changes, not on every read.
public protocol CodableFlagValue: FlagValueConvertible, Codable {}

extension CodableFlagValue {
    /// ``FlagValueType/object``.
    public static var flagValueType: FlagValueType { .object }

    /// Decodes the value from the JSON object `flagValue` holds; `nil` when it is not an object or does not decode.
    public init?(flagValue: FlagValue) {
        guard flagValue.valueType == .object,
            let data = try? JSONEncoder().encode(flagValue),
            let value = try? JSONDecoder().decode(Self.self, from: data)
        else { return nil }
        self = value
    }

    /// The value encoded as JSON; `null` when it cannot be encoded.
    public var flagValue: FlagValue {
        guard let data = try? JSONEncoder().encode(self),
            let value = try? JSONDecoder().decode(FlagValue.self, from: data)
        else { return .null }
        return value
    }
}
