import FlagEvaluation
import Testing

/// The flagd loader refuses a flag file with a duplicate key, naming the key and where it is,
/// instead of silently keeping one of the values.
struct DuplicateKeyTests {
    @Test func aDuplicateFlagKeySkipsTheSourceWithTheKeyAndPlace() {
        let json = #"{"flags": {"beta": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}, "beta": {"state": "DISABLED", "variants": {"on": true}, "defaultVariant": "on"}}}"#
        let (definitions, errors) = FlagDefinitions.load([FlagSource(name: "flags.json", json: json)])
        #expect(definitions.keys.isEmpty)
        #expect(errors.count == 1)
        #expect(errors.first?.effect == .sourceSkipped)
        #expect(
            errors.first?.description.contains(
                #"at "/flags": duplicate key "beta" in an object; each key may appear only once"#) == true,
            "\(errors)")
    }

    @Test func aDuplicateInsideAFlagIsReportedWithItsPath() {
        #expect {
            try JSONValue(parsing: #"{"flags": {"beta": {"state": "ENABLED", "state": "DISABLED"}}}"#)
        } throws: { error in
            "\(error)"
                == #"invalid JSON at line 1, column 41: at "/flags/beta": duplicate key "state" in an object; each key may appear only once"#
        }
    }
}
