/// A parsed JSON value that remembers what a manifest reader needs and `JSONSerialization`
/// forgets: the order of object members, the line each value starts on, and repeated keys.
public indirect enum JSONNode: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case double(Double)
    /// A string, escapes decoded.
    case string(String)
    /// An array, in file order.
    case array([JSONNode])
    /// Members in file order; a key may appear more than once.
    case object([Member])

    /// One `"key": value` pair of an object.
    public struct Member: Sendable, Hashable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONNode
        /// The 1-based line the key is on.
        public var line: Int
        /// UTF-8 offsets in the text: where the key's opening quote is, and where the value
        /// starts and ends (for edits that keep the rest of the file as written).
        public var keyStart: Int = 0
        /// The UTF-8 offset where the value starts.
        public var valueStart: Int = 0
        /// The UTF-8 offset just past the value's end.
        public var valueEnd: Int = 0

        /// A member of `key` and `value` on `line`; its offsets start at 0 until the parser sets them.
        public init(key: String, value: JSONNode, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a Boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The members, if this is an object.
    public var members: [Member]? {
        if case .object(let members) = self { members } else { nil }
    }
}

/// A syntax error in JSON text read by ``JSONNodeParser``, with the line and column where it was
/// noticed and, for a repeated key, the key (the manifest reader reports those itself).
public struct JSONNodeSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, in a sentence.
    public let message: String
    /// The 1-based line where it was noticed.
    public let line: Int
    /// The 1-based column (in bytes) where it was noticed.
    public let column: Int
    /// The key, when the text is well-formed but repeats a key in an object.
    public var duplicateKey: String?

    /// `line L, column C: message`.
    public var description: String { "line \(line), column \(column): \(message)" }
}

/// A small strict JSON parser (RFC 8259) that keeps member order and lines, and rejects a key
/// repeated in an object (which other JSON readers would silently resolve by keeping one).
public struct JSONNodeParser {
    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    /// The keys leading to the value being parsed.
    private var path: [String] = []
    /// The object whose repeated keys are kept for the caller to report (`["flags"]`).
    private var duplicatesAllowedAt: [String]?

    /// Parses a whole document.
    ///
    /// - Parameter allowedPath: the keys leading to the one object in which a repeated key is
    ///   kept (both members appear in ``JSONNode/object(_:)``) rather than rejected, for a
    ///   caller that reports it better, such as the manifest reader for `["flags"]`.
    /// - Throws: ``JSONNodeSyntaxError`` at the first character that is not valid JSON, or at a key
    ///   that appears twice in an object, naming the key and the line of the first.
    public static func parse(_ text: String, allowingDuplicateKeysIn allowedPath: [String]? = nil) throws(JSONNodeSyntaxError) -> JSONNode {
        var parser = JSONNodeParser(bytes: Array(text.utf8))
        parser.duplicatesAllowedAt = allowedPath
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == parser.bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ message: String) -> JSONNodeSyntaxError {
        JSONNodeSyntaxError(message: message, line: line, column: position - lineStart + 1)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\n"):
                position += 1
                line += 1
                lineStart = position
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                position += 1
            default:
                return
            }
        }
    }

    private mutating func expect(_ literal: String, value: JSONNode) throws(JSONNodeSyntaxError) -> JSONNode {
        for byte in literal.utf8 {
            guard current == byte else { throw error("expected '\(literal)'") }
            position += 1
        }
        return value
    }

    private mutating func parseValue() throws(JSONNodeSyntaxError) -> JSONNode {
        guard let byte = current else { throw error("unexpected end of text, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try expect("true", value: .bool(true))
        case UInt8(ascii: "f"): return try expect("false", value: .bool(false))
        case UInt8(ascii: "n"): return try expect("null", value: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    private mutating func enter() throws(JSONNodeSyntaxError) {
        depth += 1
        guard depth <= 512 else { throw error("nesting is too deep") }
    }

    private mutating func parseObject() throws(JSONNodeSyntaxError) -> JSONNode {
        try enter()
        defer { depth -= 1 }
        position += 1
        var members: [JSONNode.Member] = []
        var firstLines: [String: Int] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyLine = line
            let keyStart = position
            let keyColumn = position - lineStart + 1
            let key = try parseString()
            if let first = firstLines[key], duplicatesAllowedAt != path {
                let place = path.isEmpty ? "" : " in \(path.joined(separator: "."))"
                throw JSONNodeSyntaxError(
                    message: "the key \"\(key)\" appears twice\(place) (first on line \(first)); JSON readers would silently keep only one. Remove one of them.",
                    line: keyLine, column: keyColumn, duplicateKey: key)
            }
            if firstLines[key] == nil { firstLines[key] = keyLine }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after key \"\(key)\"") }
            position += 1
            skipWhitespace()
            let valueStart = position
            path.append(key)
            let value = try parseValue()
            path.removeLast()
            var member = JSONNode.Member(key: key, value: value, line: keyLine)
            member.keyStart = keyStart
            member.valueStart = valueStart
            member.valueEnd = position
            members.append(member)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONNodeSyntaxError) -> JSONNode {
        try enter()
        defer { depth -= 1 }
        position += 1
        var elements: [JSONNode] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.append("\(elements.count)")
            elements.append(try parseValue())
            path.removeLast()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func parseString() throws(JSONNodeSyntaxError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) {
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
            run.removeAll(keepingCapacity: true)
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                flush(&run, into: &scalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(&run, into: &scalars)
                position += 1
                guard let escape = current else { throw error("unterminated string") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try parseHex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                            bytes[position + 1] == UInt8(ascii: "u")
                        else { throw error("unpaired surrogate in \\u escape") }
                        position += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
                    scalars.append(scalar)
                default: throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
            case 0..<0x20:
                throw error("control character in a string; escape it")
            default:
                run.append(byte)
                position += 1
            }
        }
    }

    private mutating func parseHex4() throws(JSONNodeSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else { throw error("invalid \\u escape") }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func parseNumber() throws(JSONNodeSyntaxError) -> JSONNode {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        func digits(_ parser: inout JSONNodeParser) -> Int {
            var count = 0
            while let byte = parser.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                parser.position += 1
                count += 1
            }
            return count
        }
        if current == UInt8(ascii: "0") {
            position += 1
        } else if digits(&self) == 0 {
            throw error("expected a digit")
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let value = Int(text) { return .integer(value) }
        guard let value = Double(text) else { throw error("invalid number \(text)") }
        return .double(value)
    }
}
