extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each (`[0x0f, 0xa0]` → `"0fa0"`), without
    /// formatting each byte through `String(format:)`, which the request path cannot afford.
    package var lowercaseHex: String {
        let digits: StaticString = "0123456789abcdef"
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        digits.withUTF8Buffer { digits in
            for byte in self {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
