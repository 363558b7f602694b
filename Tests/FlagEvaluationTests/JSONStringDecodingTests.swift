import FlagEvaluation
import Foundation
import Testing

/// Strings without escapes are decoded by a fast path (ASCII needs no validation; other UTF-8 is
/// checked by decoding and comparing); these pin that it accepts and refuses what the full
/// validation did, in keys and in values.
struct JSONStringDecodingTests {
    @Test(arguments: ["plain", "", "café", "日本語", "emoji 🚩", "mixed é and \u{10FFFF}"])
    func validStringsDecodeToThemselves(text: String) throws {
        let document = Data(#"{"\#(text)": "\#(text)"}"#.utf8)
        #expect(try JSONValue(parsing: document) == .object([text: .string(text)]))
    }

    @Test func aReplacementCharacterInTheInputIsKept() throws {
        // U+FFFD written in the document is valid UTF-8, not a sign of repair.
        #expect(try JSONValue(parsing: Data(#"["\#u{FFFD}x"]"#.utf8)) == .array([.string("\u{FFFD}x")]))
    }

    @Test(arguments: [
        [0xFF], [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC0, 0xAF],
        [0x61, 0x80, 0x62],
    ] as [[UInt8]])
    func invalidUTF8IsAnErrorInValuesAndKeys(bytes: [UInt8]) {
        let inValue = Data(#"{"key": ""#.utf8) + Data(bytes) + Data(#""}"#.utf8)
        let inKey = Data(#"{""#.utf8) + Data(bytes) + Data(#"": 1}"#.utf8)
        for document in [inValue, inKey] {
            #expect {
                try JSONValue(parsing: document)
            } throws: { error in
                "\(error)".contains("invalid UTF-8")
            }
        }
    }
}
