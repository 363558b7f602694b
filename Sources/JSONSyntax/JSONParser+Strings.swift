/// Strings: the fast path without escapes, UTF-8 validation, and `\` escapes with surrogate
/// pairs.
extension JSONParser {
    @inlinable
    mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes. `seen` collects every byte's bits: below 0x80, the string is ASCII.
        var seen: UInt8 = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try validatedUTF8(start..<index, isASCII: seen < 0x80)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            seen |= byte
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

    /// The string of the bytes in `range`; an error when they are not valid UTF-8.
    ///
    /// `String(decoding:as:)` is the standard library's fast path (`String(validating:as:)` runs
    /// its generic, unspecialized validation: half the time of parsing a large document). ASCII
    /// is always valid; any other input is valid exactly when decoding kept its bytes, since
    /// decoding replaces every invalid sequence with U+FFFD, which changes them.
    @inlinable
    func validatedUTF8(_ range: Range<Int>, isASCII: Bool) throws(JSONSyntaxError) -> String {
        let buffer = UnsafeBufferPointer(rebasing: bytes[range])
        // Short ASCII (most keys and names): written straight into a small string, which skips
        // the decoder's second pass over the bytes.
        if isASCII, buffer.count <= 15 {
            return String(unsafeUninitializedCapacity: buffer.count) { target in
                _ = target.initialize(fromContentsOf: buffer)
                return buffer.count
            }
        }
        let string = String(decoding: buffer, as: UTF8.self)
        guard isASCII || string.utf8.elementsEqual(buffer) else {
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
}
