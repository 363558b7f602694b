/// A strict RFC 8259 JSON parser that builds a value tree with a ``JSONTreeBuilder``.
///
/// Hand-written rather than built on `JSONSerialization` so that Booleans and numbers never mix
/// (Foundation on Linux returns `NSNumber` for both), integers stay exact, and large files load
/// without bridging (several times faster than `JSONSerialization` plus conversion, with a third
/// of the allocations). Duplicate object keys keep the last value, as most JSON readers do.
///
/// Shared by the core (`FlagValue`) and the evaluation engine (`JSONValue`), which do not depend
/// on each other. Its code is inlinable so that each builder gets a specialized parser.
public struct JSONParser<Builder: JSONTreeBuilder> {
    public typealias Value = Builder.Value

    /// Deepest nesting accepted, so hostile input cannot exhaust the stack.
    @inlinable static var maximumDepth: Int { 512 }

    @usableFromInline let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline var index = 0
    @usableFromInline var depth = 0
    /// The members of the objects being parsed, innermost last: each object collects its
    /// members here and builds its dictionary once it knows how many there are, so large objects
    /// are never rehashed as they grow, and the scratch storage is reused across objects.
    @usableFromInline var pendingMembers: [(key: String, value: Value)] = []

    @inlinable init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON document; only whitespace may follow it.
    @inlinable public static func parse<Bytes: Collection<UInt8>>(_ input: Bytes) throws(JSONSyntaxError) -> Value {
        let result: Result<Value, JSONSyntaxError>? = input.withContiguousStorageIfAvailable { buffer in
            parseBuffer(buffer)
        }
        if let result { return try result.get() }
        let copy = Array(input)
        return try copy.withUnsafeBufferPointer { parseBuffer($0) }.get()
    }

    @inlinable
    static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Value, JSONSyntaxError> {
        var parser = JSONParser(bytes: buffer)
        do throws(JSONSyntaxError) {
            parser.skipByteOrderMark()
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            if parser.index < buffer.count {
                throw parser.error("unexpected content after the JSON value")
            }
            return .success(value)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Values

    @inlinable
    mutating func parseValue() throws(JSONSyntaxError) -> Value {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return Builder.string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return Builder.bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return Builder.bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return Builder.null()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a value")
        }
    }

    @inlinable
    mutating func parseObject() throws(JSONSyntaxError) -> Value {
        try enterContainer()
        index += 1  // {
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return Builder.object([:])
        }
        let firstMember = pendingMembers.count
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw error("expected a string key in an object") }
            let key = try parseString()
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the object key \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            pendingMembers.append((key, value))
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                var members = [String: Value](minimumCapacity: pendingMembers.count - firstMember)
                for (key, value) in pendingMembers[firstMember...] { members[key] = value }
                pendingMembers.removeSubrange(firstMember...)
                return Builder.object(members)
            default:
                throw error("expected ',' or '}' in an object")
            }
        }
    }

    @inlinable
    mutating func parseArray() throws(JSONSyntaxError) -> Value {
        try enterContainer()
        index += 1  // [
        var elements: [Value] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return Builder.array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return Builder.array(elements)
            default:
                throw error("expected ',' or ']' in an array")
            }
        }
    }

    @inlinable
    mutating func enterContainer() throws(JSONSyntaxError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    @inlinable
    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input in a literal, expected '\(literal)'") }
        let pointer = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != pointer[offset] {
            throw error("invalid literal, expected '\(literal)'")
        }
        index += count
    }

    // MARK: - Numbers

    @inlinable
    mutating func parseNumber() throws(JSONSyntaxError) -> Value {
        let start = index
        var isInteger = true
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in a number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw error("leading zeros are not allowed in numbers") }
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw error("expected a digit after the decimal point") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw error("expected a digit in the exponent") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int(text) {
            return Builder.int(value)
        }
        // A fraction, an exponent, or an integer too large for `Int`.
        guard let value = Double(text) else {
            index = start
            throw error("number out of range")
        }
        return Builder.floatingPoint(value)
    }

    @inlinable
    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Strings

    @inlinable
    mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try validatedUTF8(start..<index)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            index += 1
        }
        var scalars = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: scalars, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &scalars)
            case ..<0x20:
                throw error("unescaped control character in a string")
            default:
                scalars.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    @inlinable
    func validatedUTF8(_ range: Range<Int>) throws(JSONSyntaxError) -> String {
        guard let string = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) else {
            throw error("invalid UTF-8 in a string")
        }
        return string
    }

    @inlinable
    mutating func parseEscape(into output: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = peek() else { throw error("unterminated escape sequence") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): output.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): output.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): output.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"):
            var code = UInt32(try parseHex4())
            if (0xD800...0xDBFF).contains(code) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in a \\u escape") }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in a \\u escape") }
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(code) {
                throw error("unpaired surrogate in a \\u escape")
            }
            guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
            output.append(contentsOf: UTF8.encode(scalar)!)
        default:
            index -= 1
            throw error("invalid escape sequence \\\(describe(byte))")
        }
    }

    @inlinable
    mutating func parseHex4() throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hexadecimal digit in a \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    // MARK: - Helpers

    @inlinable
    func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inlinable
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    @inlinable
    mutating func skipByteOrderMark() {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    @inlinable
    func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    @inlinable
    func error(_ reason: String) -> JSONSyntaxError {
        var line = 1
        var lineStart = 0
        let end = min(index, bytes.count)
        for position in 0..<end where bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(reason: reason, line: line, column: end - lineStart + 1)
    }
}
