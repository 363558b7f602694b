/// The JavaScript conversions that JSON Logic inherits from its reference implementation:
/// truthiness, `ToNumber`, `parseFloat`, `ToString`, loose and strict equality, and relational
/// comparison. Arrays and objects behave as JavaScript's fresh values: two of them are never
/// identical, an array converts to its elements joined with commas, an object to
/// `"[object Object]"`.
enum JavaScriptSemantics {
    // MARK: - Truthiness

    /// JSON Logic truthiness: JavaScript's, except that an empty array is also false.
    static func isTruthy(_ value: JSONValue) -> Bool {
        switch value {
        case .null: false
        case .bool(let flag): flag
        case .int(let number): number != 0
        case .double(let number): !(number == 0 || number.isNaN)
        case .string(let text): !text.isEmpty
        case .array(let elements): !elements.isEmpty
        case .object: true
        }
    }

    // MARK: - Numbers

    /// JavaScript `ToNumber`.
    static func toNumber(_ value: JSONValue) -> Double {
        switch value {
        case .null: 0
        case .bool(let flag): flag ? 1 : 0
        case .int(let number): Double(number)
        case .double(let number): number
        case .string(let text): stringToNumber(text)
        case .array, .object: toNumber(toPrimitive(value))
        }
    }

    /// JavaScript `parseFloat(String(value))`: the longest decimal prefix, or NaN.
    static func parseFloat(_ value: JSONValue) -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: break
        }
        let text = toJSString(value)
        let scalars = Array(text.unicodeScalars.drop(while: isJSWhitespace))
        var index = 0
        var prefix = ""
        if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" {
            prefix.unicodeScalars.append(scalars[index])
            index += 1
        }
        let rest = String(String.UnicodeScalarView(scalars[index...]))
        if rest.hasPrefix("Infinity") {
            return prefix == "-" ? -.infinity : .infinity
        }
        let length = decimalLiteralLength(Array(rest.utf8))
        guard length > 0 else { return .nan }
        return Double(prefix + String(rest.utf8.prefix(length))!) ?? .nan
    }

    /// JavaScript `StringToNumber`: whitespace-trimmed decimal, `Infinity`, or `0x`/`0o`/`0b`
    /// integers; an empty string is 0; anything else is NaN.
    static func stringToNumber(_ text: String) -> Double {
        let trimmed = String(String.UnicodeScalarView(
            text.unicodeScalars.drop(while: isJSWhitespace).reversed().drop(while: isJSWhitespace).reversed()
        ))
        if trimmed.isEmpty { return 0 }
        switch trimmed {
        case "Infinity", "+Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: break
        }
        let bytes = Array(trimmed.utf8)
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let radix: Int? = switch bytes[1] {
            case UInt8(ascii: "x"), UInt8(ascii: "X"): 16
            case UInt8(ascii: "o"), UInt8(ascii: "O"): 8
            case UInt8(ascii: "b"), UInt8(ascii: "B"): 2
            default: nil
            }
            if let radix {
                var result = 0.0
                for byte in bytes.dropFirst(2) {
                    guard let digit = Int(String(UnicodeScalar(byte)), radix: radix) else { return .nan }
                    result = result * Double(radix) + Double(digit)
                }
                return result
            }
        }
        var body = bytes[...]
        if let first = body.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { body = body.dropFirst() }
        guard decimalLiteralLength(Array(body)) == body.count, body.count > 0 else { return .nan }
        return Double(trimmed) ?? .nan
    }

    /// Length of the longest prefix of `bytes` that is an unsigned JavaScript decimal literal
    /// (`12`, `1.5`, `.5`, `5.`, `1e3`); 0 when there is none.
    private static func decimalLiteralLength(_ bytes: [UInt8]) -> Int {
        func isDigit(_ index: Int) -> Bool {
            index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
        }
        var index = 0
        var sawDigits = false
        while isDigit(index) {
            index += 1
            sawDigits = true
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            var fraction = index + 1
            while isDigit(fraction) {
                fraction += 1
                sawDigits = true
            }
            if sawDigits { index = fraction }
        }
        guard sawDigits else { return 0 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            var exponent = index + 1
            if exponent < bytes.count, bytes[exponent] == UInt8(ascii: "+") || bytes[exponent] == UInt8(ascii: "-") {
                exponent += 1
            }
            if isDigit(exponent) {
                while isDigit(exponent) { exponent += 1 }
                index = exponent
            }
        }
        return index
    }

    private static func isJSWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
        default: false
        }
    }

    /// A number result: integral values that fit exactly become ``JSONValue/int(_:)``, since
    /// JavaScript does not tell `2` from `2.0`.
    static func number(_ value: Double) -> JSONValue {
        if value == value.rounded(), abs(value) <= 9_007_199_254_740_992, let exact = Int(exactly: value) {
            return .int(exact)
        }
        return .double(value)
    }

    // MARK: - Strings

    /// JavaScript `ToPrimitive` for arrays and objects; other values are returned unchanged.
    static func toPrimitive(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array, .object: .string(toJSString(value))
        default: value
        }
    }

    /// JavaScript `String(value)`.
    static func toJSString(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): numberToString(number)
        case .string(let text): text
        case .array(let elements): elements.map(joinElementString).joined(separator: ",")
        case .object: "[object Object]"
        }
    }

    /// How `Array.prototype.join` renders one element: `null` becomes the empty string.
    static func joinElementString(_ value: JSONValue) -> String {
        if case .null = value { return "" }
        return toJSString(value)
    }

    /// JavaScript `Number.prototype.toString()`: `1.0` is `"1"`, `1e21` is `"1e+21"`,
    /// `0.0000001` is `"1e-7"`.
    static func numberToString(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        let sign = value < 0 ? "-" : ""
        // Swift prints the shortest digits that round-trip; re-lay them out the JavaScript way.
        let text = abs(value).description
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        let mantissaParts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let integerDigits = String(mantissaParts[0])
        let fractionDigits = mantissaParts.count > 1 ? String(mantissaParts[1]) : ""
        var digits = Array(integerDigits + fractionDigits)
        var point = integerDigits.count + exponent
        while digits.first == "0" {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0" { digits.removeLast() }
        let k = digits.count
        let n = point
        let digitString = String(digits)
        if k <= n && n <= 21 {
            return sign + digitString + String(repeating: "0", count: n - k)
        }
        if 0 < n && n <= 21 {
            return sign + String(digits[0..<n]) + "." + String(digits[n...])
        }
        if -6 < n && n <= 0 {
            return sign + "0." + String(repeating: "0", count: -n) + digitString
        }
        let e = n - 1
        let exponentText = (e < 0 ? "-" : "+") + String(abs(e))
        if k == 1 { return sign + digitString + "e" + exponentText }
        return sign + String(digits[0]) + "." + String(digits[1...]) + "e" + exponentText
    }

    // MARK: - Equality and comparison

    /// JavaScript `===`.
    static func strictEquals(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.int, .double), (.double, .int), (.double, .double): lhs.doubleValue! == rhs.doubleValue!
        case (.string(let a), .string(let b)): a == b
        default: false  // different types, or arrays/objects (compared by identity in JavaScript)
        }
    }

    /// JavaScript `==`.
    static func looseEquals(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.bool, .bool), (.string, .string), (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            return strictEquals(lhs, rhs)
        case (.int, .string), (.double, .string), (.string, .int), (.string, .double):
            return toNumber(lhs) == toNumber(rhs)
        case (.bool(let flag), _):
            return looseEquals(.int(flag ? 1 : 0), rhs)
        case (_, .bool(let flag)):
            return looseEquals(lhs, .int(flag ? 1 : 0))
        case (.array, .array), (.object, .object), (.array, .object), (.object, .array):
            return false
        case (.array, _), (.object, _):
            return looseEquals(toPrimitive(lhs), rhs)
        case (_, .array), (_, .object):
            return looseEquals(lhs, toPrimitive(rhs))
        }
    }

    /// JavaScript's abstract relational comparison `lhs < rhs`; `nil` when undefined (NaN).
    private static func lessThan(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool? {
        let a = toPrimitive(lhs)
        let b = toPrimitive(rhs)
        if case .string(let x) = a, case .string(let y) = b {
            return x.utf16.lexicographicallyPrecedes(y.utf16)
        }
        let x = toNumber(a)
        let y = toNumber(b)
        if x.isNaN || y.isNaN { return nil }
        return x < y
    }

    /// JavaScript `<`.
    static func less(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        lessThan(lhs, rhs) ?? false
    }

    /// JavaScript `<=`.
    static func lessOrEqual(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        lessThan(rhs, lhs) == false
    }
}
