import FeatureFlags
import Testing

/// Registry keys are judged by bytes when they are ASCII and by Unicode scalars otherwise; both
/// paths refuse a comma and white space at either end, and accept everything else.
struct RegistryKeyTests {
    private func isAccepted(_ key: String) -> Bool {
        (try? FlagRegistry([FlagDefinition(key: key, type: .boolean, default: .bool(false))])) != nil
    }

    @Test(arguments: ["\tflag", "flag\n", "\u{0B}flag", "flag\u{0C}", "flag\r", " flag", "flag ", "a,b", ",", "é,x"])
    func asciiWhiteSpaceAtAnEndOrACommaIsRefused(key: String) {
        #expect(!isAccepted(key))
    }

    @Test(arguments: ["\u{00A0}flag", "flag\u{3000}", "flag\u{2028}", "é\u{0085}", "\u{1680}é"])
    func unicodeWhiteSpaceAtAnEndIsRefused(key: String) {
        #expect(!isAccepted(key))
    }

    @Test(arguments: ["flag", "a b", "a\tb", "café", "é", "flag_\u{00A0}_inside", "\u{1F6A9}", "x\u{1C}", "\u{1F}x"])
    func everythingElseIsAccepted(key: String) {
        #expect(isAccepted(key))
    }
}
