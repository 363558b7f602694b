import Foundation
internal import JSONSyntax

/// Makes ``FlagValue``s for the package's JSON parser.
enum FlagValueTreeBuilder: JSONTreeBuilder {
    static func null() -> FlagValue { .null }
    static func bool(_ value: Bool) -> FlagValue { .bool(value) }
    static func int(_ value: Int) -> FlagValue { .int(value) }
    /// Like the `Decodable` conformance, which tries `Int` before `Double`: `2.0` and `1e3`
    /// are integers.
    static func floatingPoint(_ value: Double) -> FlagValue { Int(exactly: value).map(FlagValue.int) ?? .double(value) }
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
    /// - Throws: an error naming the line and column where the data stopped being JSON, or
    ///   `DecodingError.dataCorrupted` when it is JSON but not an object.
    public static func objectMembers(fromJSON data: Data) throws -> [String: FlagValue] {
        guard case .object(let members) = try FlagValue(jsonData: data) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Expected a JSON object."))
        }
        return members
    }

    /// Parses JSON data (any JSON value, not only an object), such as a remote payload.
    ///
    /// Faster than `JSONSerialization` or `JSONDecoder`, for the reasons given in
    /// ``objectMembers(fromJSON:)``. A UTF-8 byte order mark is skipped.
    ///
    /// - Throws: an error naming the line and column where the data stopped being JSON.
    public init(jsonData data: Data) throws {
        self = try JSONParser<FlagValueTreeBuilder>.parse(data)
    }

    /// Parses JSON text into a value.
    ///
    /// - Throws: an error naming the line and column where the text stopped being JSON.
    public init(json: String) throws {
        self = try JSONParser<FlagValueTreeBuilder>.parse(json.utf8)
    }
}
