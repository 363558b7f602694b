import Foundation
internal import JSONSyntax

extension FlagValue: Codable {
    /// Decodes any JSON value, trying `Bool`, `Int`, `Double` and `String` in turn.
    ///
    /// - Throws: `DecodingError.dataCorrupted` for an infinite or NaN number, which a decoder
    ///   with a `nonConformingFloatDecodingStrategy` can produce.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            // A decoder may produce infinity or NaN (a `nonConformingFloatDecodingStrategy`, or
            // a number too large); no flag accepts them and JSON cannot write them back.
            guard value.isFinite else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "The number \(value) is not finite; flag values must be finite.")
            }
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FlagValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: FlagValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Expected a JSON value (bool, number, string, array, object or null).")
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

extension FlagValue {
    /// The value as compact JSON text with object keys sorted, so output is deterministic.
    ///
    /// Reading the text back (``init(json:)``) gives the same value: integers are written
    /// without a fraction, doubles in their shortest exact form with a fraction or an exponent
    /// (`2.0`, `-0.0`, `5e-324`, `1.7976931348623157e+308`). JSON has no infinity or NaN, so a
    /// non-finite double, which no reader and no flag accepts, is written as `null`.
    public var jsonString: String {
        var output = ""
        writeJSON(to: &output)
        return output
    }

    private func writeJSON(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            // Swift's description is the shortest text that reads back as the same double, and
            // always has a fraction or an exponent, so the parser reads it as a double again.
            output += value.isFinite ? value.description : "null"
        case .string(let value): Self.writeJSONString(value, to: &output)
        case .array(let values):
            output += "["
            for (offset, value) in values.enumerated() {
                if offset > 0 { output += "," }
                value.writeJSON(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (offset, key) in members.keys.sorted().enumerated() {
                if offset > 0 { output += "," }
                Self.writeJSONString(key, to: &output)
                output += ":"
                members[key]!.writeJSON(to: &output)
            }
            output += "}"
        }
    }

    private static func writeJSONString(_ string: String, to output: inout String) {
        JSONStringWriter.write(string, to: &output)
    }
}
