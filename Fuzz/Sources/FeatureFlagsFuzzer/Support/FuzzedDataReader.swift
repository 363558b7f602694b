import FeatureFlags
import Foundation

/// Turns fuzzer bytes into choices: small integers, strings and flag values. Reads past the end
/// give zeros, so every input decodes to something.
struct FuzzedDataReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ data: Data) {
        self.bytes = Array(data)
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// A number in `0..<count` (`count` > 0).
    mutating func choice(_ count: Int) -> Int {
        Int(byte()) % count
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// Eight bytes as an integer.
    mutating func int() -> Int {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int(truncatingIfNeeded: value)
    }

    /// A small integer in `-128...127`, the usual size of fuzzed numbers.
    mutating func smallInt() -> Int { Int(Int8(bitPattern: byte())) }

    /// Up to `maxLength` bytes decoded as UTF-8 (invalid sequences become U+FFFD).
    mutating func string(maxLength: Int = 16) -> String {
        let length = min(Int(byte()) % (maxLength + 1), bytes.count - min(position, bytes.count))
        let slice = bytes[min(position, bytes.count)..<min(position + length, bytes.count)]
        position += length
        return String(decoding: slice, as: UTF8.self)
    }

    /// A JSON-shaped value, nested at most `depth` levels.
    mutating func flagValue(depth: Int = 2) -> FlagValue {
        switch choice(depth > 0 ? 9 : 7) {
        case 0: return .null
        case 1, 2: return .bool(bool())
        case 3: return .int(smallInt())
        case 4: return .int(int())
        case 5: return .double(Double(smallInt()) / 4)
        case 6: return .string(string())
        case 7: return .array((0..<choice(4)).map { _ in flagValue(depth: depth - 1) })
        default:
            var members: [String: FlagValue] = [:]
            for _ in 0..<choice(4) { members[string(maxLength: 6)] = flagValue(depth: depth - 1) }
            return .object(members)
        }
    }
}
