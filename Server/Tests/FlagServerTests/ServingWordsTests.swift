import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Testing

/// What a grid cell says a flag serves.
struct ServingWordsTests {
    let boolean = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])

    @Test
    func aBooleanSplitIsARolloutOfTheTrueVariant() {
        let words = ServingWords(flag: boolean, settings: FlagSettings(enabled: true, defaultVariant: "off", targeting: ["fractional": [["on", 10], ["off", 90]]]))
        #expect(words.text == "on: 10 % rollout of on")
        #expect(words.kind == .rollout)
    }

    @Test
    func otherSplitsRulesAndPlainValuesSayWhatTheyServe() {
        let colours = FlagRecord(key: "colour", type: .string, variants: ["red": "red", "blue": "blue", "green": "green"])
        let split = ServingWords(flag: colours, settings: FlagSettings(enabled: true, defaultVariant: "red",
            targeting: ["fractional": [["red", 50], ["blue", 30], ["green", 20]]]))
        #expect(split.text == "on: split red 50 % · blue 30 % · green 20 %")
        let all = ServingWords(flag: boolean, settings: FlagSettings(enabled: true, defaultVariant: "off", targeting: ["fractional": [["on", 100], ["off", 0]]]))
        #expect(all.text == "on: serves on")
        #expect(all.kind == .on)
        let rule = ServingWords(flag: boolean, settings: FlagSettings(enabled: true, defaultVariant: "off", targeting: ["if": [true, "on"]]))
        #expect(rule.text == "on: rule, else off")
        #expect(rule.kind == .rule)
        #expect(ServingWords(flag: boolean, settings: FlagSettings(enabled: true, defaultVariant: nil)).text == "on: serves the code default")
    }

    @Test
    func aFlagThatIsOffSaysOffAndKeepsItsPlan() {
        let words = ServingWords(flag: boolean, settings: FlagSettings(enabled: false, defaultVariant: "off", targeting: ["fractional": [["on", 10], ["off", 90]]]))
        #expect(words.text == "off")
        #expect(words.kind == .off)
        #expect(words.plan == "10 % rollout of on")
    }
}
