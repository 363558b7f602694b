/// The grammar of the keys the server stores (flags, segments, environments, experiments,
/// metrics, console users): 1–``maximumLength`` ASCII letters, digits, `.`, `_` or `-`.
package enum KeyRule {
    /// The longest key, in bytes.
    package static let maximumLength = 128

    /// Whether `key` follows the grammar.
    package static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= maximumLength
            && key.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}
