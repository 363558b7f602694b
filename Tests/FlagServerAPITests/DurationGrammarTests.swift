import FlagServerAPI
import Testing

struct DurationGrammarTests {
    @Test func groupsOfANumberAndAUnitAddUp() throws {
        #expect(try DurationGrammar.seconds("90s") == 90)
        #expect(try DurationGrammar.seconds("30m") == 1800)
        #expect(try DurationGrammar.seconds("30min") == 1800)
        #expect(try DurationGrammar.seconds("2h") == 7200)
        #expect(try DurationGrammar.seconds("1d12h") == 129_600)
        #expect(try DurationGrammar.seconds("1h30m") == 5400)
        #expect(try DurationGrammar.seconds("1min30s") == 90)
        #expect(try DurationGrammar.seconds("2H") == 7200)
        #expect(try DurationGrammar.seconds("0s") == 0)
    }

    @Test func plainSecondsOnlyWhereTheCallerAllowsThem() throws {
        #expect(throws: DurationGrammar.Failure.notADuration) { try DurationGrammar.seconds("90") }
        #expect(try DurationGrammar.seconds("90", allowingPlainSeconds: true) == 90)
        #expect(try DurationGrammar.seconds("0", allowingPlainSeconds: true) == 0)
        // A number alone is the whole text or nothing: `90 1h` and `1h90` are not durations.
        #expect(throws: DurationGrammar.Failure.notADuration) { try DurationGrammar.seconds("1h90", allowingPlainSeconds: true) }
    }

    @Test(arguments: ["", "h", "-1", "+1h", "1y", "1 h", "1h ", "1.5h", "1hh", "١h", "1000000000s", "½h"])
    func textOutsideTheGrammarIsRefused(_ text: String) {
        #expect(throws: DurationGrammar.Failure.notADuration) { try DurationGrammar.seconds(text, allowingPlainSeconds: true) }
    }

    @Test func theCallersMaximumAndTheGrammarsOwnBoundHold() throws {
        #expect(try DurationGrammar.seconds("366d", maximum: 366 * 86_400) == 366 * 86_400)
        #expect(throws: DurationGrammar.Failure.tooLong) { try DurationGrammar.seconds("366d1s", maximum: 366 * 86_400) }
        #expect(throws: DurationGrammar.Failure.tooLong) { try DurationGrammar.seconds("31622401", allowingPlainSeconds: true, maximum: 366 * 86_400) }
        // A caller cannot raise the bound past 10 years, which keeps the sum far from overflow
        // however many groups the text has.
        #expect(throws: DurationGrammar.Failure.tooLong) {
            try DurationGrammar.seconds(String(repeating: "999999999d", count: 1000), maximum: .max)
        }
        #expect(try DurationGrammar.seconds("3660d") == DurationGrammar.maximumSeconds)
    }

    @Test func textIsTheShortestFormTheGrammarReadsBack() throws {
        #expect(DurationGrammar.text(seconds: 5400) == "1h30m")
        #expect(DurationGrammar.text(seconds: 86_400 + 45) == "1d45s")
        #expect(DurationGrammar.text(seconds: 0) == "0s")
        for seconds in [1, 59, 60, 61, 3599, 3600, 86_399, 86_400, 90 * 86_400, 123_457] {
            #expect(try DurationGrammar.seconds(DurationGrammar.text(seconds: seconds)) == seconds)
        }
    }
}
