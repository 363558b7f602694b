import FlagEvaluation
import Foundation
import Testing

struct FlagDefinitionsTests {
    static let base = FlagSource(name: "base.json", json: """
        {
          "metadata": {"flagSetId": "checkout", "team": "payments", "version": "1"},
          "flags": {
            "new-flow": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
                         "metadata": {"team": "growth", "ticket": 42}},
            "page-size": {"state": "ENABLED", "variants": {"small": 10, "large": 50}, "defaultVariant": "small"}
          }
        }
        """)

    static let overrides = FlagSource(name: "overrides.json", json: """
        {
          "flags": [
            {"key": "page-size", "state": "ENABLED", "variants": {"small": 20, "large": 100}, "defaultVariant": "large"},
            {"key": "banner", "state": "DISABLED", "variants": {"a": "Hello", "b": "Hi"}, "defaultVariant": null}
          ]
        }
        """)

    @Test func mergesSourcesLaterWinning() throws {
        let definitions = try FlagDefinitions.loadStrictly([Self.base, Self.overrides])
        #expect(definitions.keys == ["banner", "new-flow", "page-size"])
        #expect(definitions["page-size"]?.source == "overrides.json")
        #expect(definitions["page-size"]?.variants["large"] == .int(100))
        #expect(definitions["page-size"]?.defaultVariant == "large")
        #expect(definitions["banner"]?.defaultVariant == nil)
        #expect(definitions["banner"]?.state == .disabled)
    }

    @Test func exposesFlagsForManifests() throws {
        let definitions = try FlagDefinitions.loadStrictly([Self.base])
        let flag = try #require(definitions["new-flow"])
        #expect(flag.variantNames == ["off", "on"])
        #expect(flag.variantType == .boolean)
        #expect(flag.hasTargeting == false)
        // Flag-set metadata sits under the flag's own.
        #expect(flag.metadata == ["flagSetId": "checkout", "team": "growth", "ticket": 42, "version": "1"])
        #expect(definitions["page-size"]?.metadata == ["flagSetId": "checkout", "team": "payments", "version": "1"])
    }

    @Test func oneBadFlagDoesNotStopTheOthers() {
        let source = FlagSource(name: "mixed.json", json: """
            {"flags": {
              "good": {"state": "ENABLED", "variants": {"a": "x"}, "defaultVariant": "a"},
              "no-state": {"variants": {"a": 1}},
              "bad-variant": {"state": "ENABLED", "variants": {"a": [1]}},
              "bad-default": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": 3},
              "unknown-default": {"state": "ENABLED", "variants": {"a": 1}, "defaultVariant": "zzz"},
              "broken-rule": {"state": "ENABLED", "variants": {"a": 1}, "targeting": {"$ref": "nowhere"}},
              "odd-rule": {"state": "ENABLED", "variants": {"a": 1}, "targeting": {"in": ["a"]}}
            }}
            """)
        let (definitions, errors) = FlagDefinitions.load([source])
        #expect(definitions.keys == ["broken-rule", "good", "odd-rule", "unknown-default"])
        let byFlag = Dictionary(grouping: errors, by: { $0.flagKey ?? "" })
        #expect(byFlag["no-state"]?.first?.effect == .flagSkipped)
        #expect(byFlag["bad-variant"]?.first?.description == #"mixed.json: flag "bad-variant": variant "a" is array; variants must be booleans, strings, numbers or objects (flag skipped)"#)
        #expect(byFlag["bad-default"]?.first?.effect == .flagSkipped)
        #expect(byFlag["unknown-default"]?.first?.effect == .flagFailsEvaluation)
        #expect(byFlag["broken-rule"]?.first?.effect == .flagFailsEvaluation)
        #expect(byFlag["odd-rule"]?.first?.effect == .nonConforming)
        #expect(byFlag["good"] == nil)
    }

    /// Loading checks variants and metadata in one pass and goes back over them in name order
    /// only when something is wrong: the problem reported is the first in name order, every
    /// member of a flag object is read wherever it is written, and flag-set metadata merges
    /// under the flag's.
    @Test func variantAndMetadataProblemsAreReportedInNameOrder() {
        let source = FlagSource(name: "order.json", json: """
            {"metadata": {"team": "core", "bad": [1], "version": "1"},
             "flags": {
              "empty-name": {"state": "ENABLED", "variants": {"b": true, "": false}},
              "first-bad": {"state": "ENABLED", "variants": {"d": [1], "b": null, "c": 1}},
              "mixed": {"state": "ENABLED", "variants": {"z": 1, "y": "s", "x": true}},
              "bad-metadata": {"state": "ENABLED", "variants": {"a": 1}, "metadata": {"b": {"x": 1}, "a": [2]}},
              "reordered": {"targeting": {"if": [true, "b"]}, "metadata": {"team": "web"}, "defaultVariant": "a",
                            "extra": 1, "variants": {"b": 2, "a": 1}, "state": "ENABLED"}
            }}
            """)
        let (definitions, errors) = FlagDefinitions.load([source])
        #expect(errors.map(\.description) == [
            #"order.json: flag-set "metadata" value "bad" is array; metadata values must be strings, numbers or booleans (value ignored)"#,
            #"order.json: flag "bad-metadata": "metadata" value "a" is array; metadata values must be strings, numbers or booleans (flag skipped)"#,
            #"order.json: flag "empty-name": variant names must not be empty (flag skipped)"#,
            #"order.json: flag "first-bad": variant "b" is null; variants must be booleans, strings, numbers or objects (flag skipped)"#,
            #"order.json: flag "mixed": "variants" mixes boolean and number and string values; all variants of a flag must have one type (flag skipped)"#,
        ])
        #expect(definitions.keys == ["reordered"])
        let flag = definitions["reordered"]
        #expect(flag?.metadata == ["team": "web", "version": "1"])
        #expect(flag?.variantType == .number)
        #expect(flag?.defaultVariant == "a")
        #expect(flag?.hasTargeting == true)
        #expect(FlagEvaluator(definitions: definitions).evaluate(flag: "reordered", type: .integer, default: 0, now: Date()).value == 2)
    }

    @Test(arguments: [
        ("not json", "invalid JSON at line 1, column 1"),
        ("[1]", "the document must be a JSON object"),
        (#"{"flag": {}}"#, #"the document has no "flags" member"#),
        (#"{"flags": 3}"#, #""flags" must be an object or an array"#),
    ])
    func unusableSourcesAreSkipped(json: String, fragment: String) {
        let (definitions, errors) = FlagDefinitions.load([FlagSource(name: "bad.json", json: json)])
        #expect(definitions.keys.isEmpty)
        #expect(errors.count == 1)
        #expect(errors.first?.effect == .sourceSkipped)
        #expect(errors.first?.description.hasPrefix("bad.json: ") == true)
        #expect(errors.first?.description.contains(fragment) == true, "\(errors)")
    }

    @Test func evaluatorsAreScopedToTheirSource() {
        let first = FlagSource(name: "a.json", json: #"{"flags": {}, "$evaluators": {"isBeta": {"==": [{"var": "beta"}, true]}}}"#)
        let second = FlagSource(name: "b.json", json: #"{"flags": {"f": {"state": "ENABLED", "variants": {"on": true}, "targeting": {"if": [{"$ref": "isBeta"}, "on"]}}}}"#)
        let (_, errors) = FlagDefinitions.load([first, second])
        #expect(errors.map(\.source) == ["b.json"])
        #expect(errors.first?.effect == .flagFailsEvaluation)
    }

    @Test func strictLoadingListsEveryProblem() {
        let source = FlagSource(name: "s.json", json: #"{"flags": {"a": {"state": "ON", "variants": {"x": 1}}, "b": {"state": "ENABLED"}}}"#)
        #expect {
            try FlagDefinitions.loadStrictly([source])
        } throws: { error in
            (error as? FlagDefinitionLoadFailure)?.errors.count == 2
        }
    }

    @Test func loadsTenThousandFlags() throws {
        var members: [String] = []
        for index in 0..<10_000 {
            members.append(#""flag-\#(index)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"in": [{"var": "email"}, ["a@x.com", "b@x.com"]]}, "on", {"fractional": [["on", \#(index % 100)], ["off", 100]]}]}}"#)
        }
        let source = FlagSource(name: "big.json", json: #"{"flags": {"# + members.joined(separator: ",") + "}}")
        let definitions = try FlagDefinitions.loadStrictly([source])
        #expect(definitions.flags.count == 10_000)
        let result = FlagEvaluator(definitions: definitions).evaluate(
            flag: "flag-5", type: .boolean, default: false, context: EvaluationContext(attributes: ["email": "a@x.com"]), now: Date()
        )
        #expect(result.value == true)
    }
}
