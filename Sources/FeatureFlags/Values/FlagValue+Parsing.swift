import Foundation

extension FlagValue {
    /// Parses a JSON object of flag values, such as an override file or a remote cache.
    ///
    /// Uses `JSONSerialization`, which is several times faster than `JSONDecoder` for
    /// `[String: FlagValue]`: `FlagValue`'s `Decodable` conformance has to try each type in turn,
    /// and every miss throws.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the data is not a JSON object.
    public static func objectMembers(fromJSON data: Data) throws -> [String: FlagValue] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Expected a JSON object."))
        }
        var members: [String: FlagValue] = [:]
        members.reserveCapacity(object.count)
        for (key, value) in object {
            members[key] = FlagValue(jsonObject: value)
        }
        return members
    }

    /// Parses JSON data (any JSON value, not only an object), such as a remote payload.
    ///
    /// Faster than decoding `FlagValue` with `JSONDecoder`, for the same reason as
    /// ``objectMembers(fromJSON:)``.
    ///
    /// - Throws: the parser's error when the data is not JSON.
    public init(jsonData data: Data) throws {
        self.init(jsonObject: try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed))
    }

    /// A value from what `JSONSerialization` returns.
    init(jsonObject value: Any) {
        switch value {
        case let number as NSNumber:
            if Self.isBoolean(number) {
                self = .bool(number.boolValue)
            } else if Self.isFloatingPoint(number) {
                // Like the `Decodable` conformance, which tries `Int` before `Double`: 2.0 and
                // 1e3 are integers.
                self = Int(exactly: number.doubleValue).map(FlagValue.int) ?? .double(number.doubleValue)
            } else {
                self = .int(number.intValue)
            }
        case let string as String:
            self = .string(string)
        case let array as [Any]:
            self = .array(array.map(FlagValue.init(jsonObject:)))
        case let object as [String: Any]:
            self = .object(object.mapValues(FlagValue.init(jsonObject:)))
        default:
            self = .null
        }
    }

    private static let booleanType: ObjectIdentifier = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// `d` or `f`: JSONSerialization makes doubles of numbers with a fraction or exponent.
    private static func isFloatingPoint(_ number: NSNumber) -> Bool {
        let type = number.objCType.pointee
        return type == CChar(UInt8(ascii: "d")) || type == CChar(UInt8(ascii: "f"))
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        ObjectIdentifier(type(of: number)) == booleanType
    }
}
