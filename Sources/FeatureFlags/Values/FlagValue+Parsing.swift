import Foundation
internal import JSONSyntax

/// Makes ``FlagValue``s for the package's JSON parser.
enum FlagValueTreeBuilder: JSONTreeBuilder {
    static func null() -> FlagValue { .null }
    static func bool(_ value: Bool) -> FlagValue { .bool(value) }
    static func int(_ value: Int) -> FlagValue { .int(value) }
    /// A number written with a fraction or an exponent stays a double (`2.0` is `.double(2)`), so
    /// that what ``FlagValue/jsonString`` writes reads back as the same case. Integer flags
    /// still accept it: ``FlagValue/normalized(to:)`` turns an integral double into an integer.
    static func floatingPoint(_ value: Double) -> FlagValue { .double(value) }
    static func string(_ value: String) -> FlagValue { .string(value) }
    static func array(_ elements: [FlagValue]) -> FlagValue { .array(elements) }
    static func object(_ members: [String: FlagValue]) -> FlagValue { .object(members) }
}

extension FlagValue {
    /// Parses a JSON object of flag values, such as an override file or a remote cache.
    ///
    /// Uses the package's own strict parser, which is faster than `JSONSerialization` (no
    /// bridging through `NSNumber` and `NSDictionary`) and much faster than `JSONDecoder` for
    /// `[String: FlagValue]`, whose `Decodable` conformance has to try each type in turn.
    ///
    /// The parser is strict where JSON readers differ, so that no value changes on the way in:
    /// a key that appears twice in an object, an integer outside `Int`, and a number too large
    /// (`1e400`) or too small (`1e-400`) for a `Double` are errors. Numbers written with a
    /// fraction or an exponent are `.double`, the others `.int`.
    ///
    /// - Throws: an error naming the line, column and JSON Pointer where the data stopped being
    ///   acceptable JSON, or `DecodingError.dataCorrupted` when it is JSON but not an object.
    public static func objectMembers(fromJSON data: Data) throws -> [String: FlagValue] {
        guard case .object(let members) = try FlagValue(jsonData: data) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Expected a JSON object."))
        }
        return members
    }

    /// Parses JSON data (any JSON value, not only an object), such as a remote payload.
    ///
    /// Faster than `JSONSerialization` or `JSONDecoder`, for the reasons given in
    /// ``objectMembers(fromJSON:)``, with the same strict rules for duplicate keys and numbers.
    /// A UTF-8 byte order mark is skipped.
    ///
    /// - Throws: an error naming the line, column and JSON Pointer where the data stopped being
    ///   acceptable JSON.
    public init(jsonData data: Data) throws {
        self = try JSONParser<FlagValueTreeBuilder>.parse(data)
    }

    /// Parses JSON text into a value, by the rules of ``objectMembers(fromJSON:)``.
    ///
    /// - Throws: an error naming the line, column and JSON Pointer where the text stopped being
    ///   acceptable JSON.
    public init(json: String) throws {
        self = try JSONParser<FlagValueTreeBuilder>.parse(json.utf8)
    }
}
