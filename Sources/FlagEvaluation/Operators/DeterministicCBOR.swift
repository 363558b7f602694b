/// Writes JSON values as deterministic CBOR (RFC 8949, section 4.2.1, "core deterministic
/// encoding"), the bytes flagd's `fractional` v3 hashes.
///
/// - integers in the shortest head (major type 0, or 1 for negatives);
/// - floating-point numbers in the shortest of binary16, binary32 and binary64 that holds the
///   value exactly (NaN as `0xf97e00`); an integer and a float with the same value stay distinct,
///   as `1` and `1.0` are distinct JSON texts;
/// - strings as UTF-8 text (major type 3), arrays with a definite length (major type 4);
/// - objects as maps (major type 5) with keys sorted by their encoded bytes: shorter keys first,
///   then bytewise;
/// - `false`, `true`, `null` as `0xf4`, `0xf5`, `0xf6`.
///
/// Bytes go to a sink, so hashing a value needs no buffer:
///
/// ```swift
/// var hasher = MurmurHash3()
/// DeterministicCBOR.write(["my-flag", "user-1"], to: &hasher)
/// ```
package enum DeterministicCBOR {
    /// The encoding of `value`.
    package static func encode(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        write(value, to: &bytes)
        return bytes
    }

    /// Appends the encoding of `value` to `sink`.
    ///
    /// - Parameter integralFloatsAsIntegers: encode floating-point numbers without a fractional
    ///   part, from -2^63 up to (not including) 2^64, as integers, at any depth: what flagd's
    ///   `fractional` v3 hashes (its core turns such numbers into integers first), so `1.0` and `1`
    ///   bucket alike.
    static func write<Sink: CBORSink>(_ value: JSONValue, to sink: inout Sink, integralFloatsAsIntegers: Bool = false) {
        switch value {
        case .null:
            sink.append(0xF6)
        case .bool(let flag):
            sink.append(flag ? 0xF5 : 0xF4)
        case .int(let number):
            if number >= 0 {
                writeHead(major: 0, UInt64(number), to: &sink)
            } else {
                writeHead(major: 1, UInt64(-(number + 1)), to: &sink)
            }
        case .double(let number):
            if integralFloatsAsIntegers, number.isFinite, number.rounded(.towardZero) == number,
                number >= -0x1p63, number < 0x1p64
            {
                if number >= 0 {
                    writeHead(major: 0, UInt64(number), to: &sink)
                } else {
                    writeHead(major: 1, UInt64(-(Int64(number) + 1)), to: &sink)
                }
            } else {
                writeFloat(number, to: &sink)
            }
        case .string(let text):
            writeText(text, to: &sink)
        case .array(let elements):
            writeHead(major: 4, UInt64(elements.count), to: &sink)
            for element in elements { write(element, to: &sink, integralFloatsAsIntegers: integralFloatsAsIntegers) }
        case .object(let members):
            writeHead(major: 5, UInt64(members.count), to: &sink)
            // Text keys all start with major type 3, whose head grows with the length: encoded
            // order is length order, then byte order.
            let keys = members.keys.sorted { a, b in
                let x = a.utf8, y = b.utf8
                if x.count != y.count { return x.count < y.count }
                return x.lexicographicallyPrecedes(y)
            }
            for key in keys {
                writeText(key, to: &sink)
                write(members[key]!, to: &sink, integralFloatsAsIntegers: integralFloatsAsIntegers)
            }
        }
    }

    /// Appends a text string: its head, then its UTF-8 bytes.
    static func writeText<Sink: CBORSink>(_ text: String, to sink: inout Sink) {
        writeHead(major: 3, UInt64(text.utf8.count), to: &sink)
        sink.append(contentsOf: text.utf8)
    }

    /// Appends a head: the major type and an argument in the shortest form.
    static func writeHead<Sink: CBORSink>(major: UInt8, _ argument: UInt64, to sink: inout Sink) {
        let type = major << 5
        switch argument {
        case 0..<24:
            sink.append(type | UInt8(argument))
        case 24...0xFF:
            sink.append(type | 24)
            sink.append(UInt8(argument))
        case 0x100...0xFFFF:
            sink.append(type | 25)
            writeBigEndian(argument, bytes: 2, to: &sink)
        case 0x1_0000...0xFFFF_FFFF:
            sink.append(type | 26)
            writeBigEndian(argument, bytes: 4, to: &sink)
        default:
            sink.append(type | 27)
            writeBigEndian(argument, bytes: 8, to: &sink)
        }
    }

    private static func writeBigEndian<Sink: CBORSink>(_ value: UInt64, bytes: Int, to sink: inout Sink) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            sink.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))))
        }
    }

    /// The shortest of binary16, binary32, binary64 that represents `value` exactly.
    static func writeFloat<Sink: CBORSink>(_ value: Double, to sink: inout Sink) {
        if value.isNaN {
            sink.append(0xF9)
            writeBigEndian(0x7E00, bytes: 2, to: &sink)
            return
        }
        if let half = halfBits(value) {
            sink.append(0xF9)
            writeBigEndian(UInt64(half), bytes: 2, to: &sink)
            return
        }
        let single = Float(value)
        if Double(single) == value {
            sink.append(0xFA)
            writeBigEndian(UInt64(single.bitPattern), bytes: 4, to: &sink)
            return
        }
        sink.append(0xFB)
        writeBigEndian(value.bitPattern, bytes: 8, to: &sink)
    }

    /// The IEEE 754 binary16 bits of `value` when it holds `value` exactly (computed by hand:
    /// `Float16` is not available on every platform).
    static func halfBits(_ value: Double) -> UInt16? {
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value == 0 { return sign }
        if value.isInfinite { return sign | 0x7C00 }
        let magnitude = abs(value)
        let exponent = magnitude.exponent  // unbiased
        if (-14...15).contains(exponent) {
            // Normal: 10 fraction bits; the other 42 of the double's 52 must be zero.
            let fraction = magnitude.significandBitPattern
            guard fraction & ((1 << 42) - 1) == 0 else { return nil }
            return sign | UInt16(exponent + 15) << 10 | UInt16(fraction >> 42)
        }
        if (-24 ..< -14).contains(exponent) {
            // Subnormal: a multiple of 2^-24 below 2^-14.
            let units = magnitude * 0x1p24
            guard units == units.rounded(.towardZero) else { return nil }
            return sign | UInt16(units)
        }
        return nil
    }
}

/// Where ``DeterministicCBOR`` writes bytes: a hasher, or an array in tests.
protocol CBORSink {
    mutating func append(_ byte: UInt8)
    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes)
}

extension CBORSink {
    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        for byte in bytes { append(byte) }
    }
}

extension [UInt8]: CBORSink {}

extension MurmurHash3: CBORSink {
    mutating func append(_ byte: UInt8) {
        combine(byte: byte)
    }

    mutating func append<Bytes: Sequence<UInt8>>(contentsOf bytes: Bytes) {
        combine(bytes)
    }
}
