import FlagEvaluation
import Foundation
import Testing

/// Loads flagd-schemas' own valid and invalid examples (`../shared/conformance/flagd-schemas/json/test`):
/// positive files load without a single reported problem, negative files are reported with a
/// message naming the problem. Every file in those folders must have an expectation here, so a
/// new example cannot pass unnoticed.
///
/// Skipped, not passed, when the shared conformance folder is not checked out beside the package;
/// under CI (`CI` set) it runs and fails instead.
@Suite(ConformanceMaterial.required("flagd-schemas/json/test"))
struct FlagdSchemaExampleTests {
    @Test func conformanceMaterialIsPresent() {
        ConformanceFiles.requirePresent("flagd-schemas/json/test")
    }

    static let root = "flagd-schemas/json/test"

    /// Negative flag files and a fragment the report must contain.
    static let negativeFlagFiles: [String: String] = [
        "empty-variants.json": #"flag "myBoolFlag": "variants" is empty"#,
        "malformed-flag.json": #"flag "not-a-flag": "state" is missing"#,
        "missing-variants.json": #"flag "myBoolFlag": "variants" is missing"#,
        "mixed-variant-types.ffconfig.json": #""variants" mixes boolean and string values"#,
        "state-set-incorrectly.json": #""state" is "WILL-FAIL""#,
        "with-array-flags.json": #""flags" is an array, which the declared schema"#,
        "with-invalid-flag-metadata.json": #""metadata" value "invalid" is object"#,
        "with-invalid-flag-set-metadata.json": #"flag-set "metadata" value "invalid" is object"#,
        "with-invalid-targeting.json": #"unknown operator "not-a-real-rule""#,
    ]

    /// Negative targeting rules and a fragment the report must contain.
    static let negativeTargetingFiles: [String: String] = [
        "fractional-decimal-weighting.json": #"the weight 25.5 of bucket "diamonds""#,
        "fractional-invalid-bucketing.json": #"the bucketing value must be a rule"#,
        "fractional-invalid-weighting.json": #"the weight "25" of bucket "diamonds""#,
        "fractional-negative-weighting.json": #"the weight -25 of bucket "diamonds""#,
        "invalid-ends-with-param.json": #"ends_with: arguments must be strings or rules, got number 0"#,
        "invalid-flagd-props.json": #""$flagd.invalidProp" is not a flagd property"#,
        "invalid-starts-with-param.json": #"starts_with: arguments must be strings or rules, got number 0"#,
        "sem-ver-invalid-range-specifier.json": #"sem_ver: the operator "*" is not one of"#,
        "sem-ver-invalid-ver-expression.json": #"sem_ver: "2.0.0.0" is not a full semantic version"#,
    ]

    static func load(_ url: URL) throws -> [FlagDefinitionError] {
        FlagDefinitions.load([FlagSource(name: url.lastPathComponent, data: try Data(contentsOf: url))]).errors
    }

    /// Wraps a bare targeting rule in a one-flag document; `$ref`s in it get stand-in evaluators,
    /// since the targeting schema treats references as opaque names.
    static func flagDocument(targeting: JSONValue) -> FlagSource {
        var references: Set<String> = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let members):
                if members.count == 1, let name = members["$ref"]?.stringValue { references.insert(name) }
                members.values.forEach(collect)
            case .array(let elements):
                elements.forEach(collect)
            default:
                break
            }
        }
        collect(targeting)
        let document: JSONValue = [
            "flags": ["f": ["state": "ENABLED", "variants": ["on": true, "off": false], "defaultVariant": "on", "targeting": targeting]],
            "$evaluators": .object(Dictionary(uniqueKeysWithValues: references.map { ($0, ["==": [1, 1]]) })),
        ]
        return FlagSource(name: "wrapped", json: document.serialized())
    }

    @Test(arguments: ["flags/positive", "flagd/positive"])
    func positiveFlagFilesLoadCleanly(folder: String) throws {
        let files = try ConformanceFiles.jsonFiles(in: "\(Self.root)/\(folder)")
        #expect(!files.isEmpty)
        for url in files {
            let errors = try Self.load(url)
            #expect(errors.isEmpty, "\(folder)/\(url.lastPathComponent): \(errors)")
            let data = try Data(contentsOf: url)
            let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: url.lastPathComponent, data: data)])
            #expect(!definitions.keys.isEmpty)
        }
        print("flagd schema examples \(folder): \(files.count) files loaded cleanly")
    }

    @Test func negativeFlagFilesAreReported() throws {
        let files = try ConformanceFiles.jsonFiles(in: "\(Self.root)/flags/negative")
        #expect(Set(files.map(\.lastPathComponent)) == Set(Self.negativeFlagFiles.keys), "every negative example needs an expectation")
        for url in files {
            let errors = try Self.load(url)
            let fragment = Self.negativeFlagFiles[url.lastPathComponent] ?? "<no expectation>"
            #expect(
                errors.contains { $0.description.contains(fragment) && $0.effect != .nonConforming },
                "\(url.lastPathComponent): expected a report containing \(fragment), got \(errors)"
            )
            #expect(throws: FlagDefinitionLoadFailure.self) {
                try FlagDefinitions.loadStrictly([FlagSource(name: url.lastPathComponent, data: try Data(contentsOf: url))])
            }
        }
        print("flagd schema examples flags/negative: \(files.count) files rejected")
    }

    @Test func negativeTargetingRulesAreReported() throws {
        let files = try ConformanceFiles.jsonFiles(in: "\(Self.root)/targeting/negative")
        #expect(Set(files.map(\.lastPathComponent)) == Set(Self.negativeTargetingFiles.keys), "every negative example needs an expectation")
        for url in files {
            let rule = try JSONValue(parsing: Data(contentsOf: url))
            let (_, errors) = FlagDefinitions.load([Self.flagDocument(targeting: rule)])
            let fragment = Self.negativeTargetingFiles[url.lastPathComponent] ?? "<no expectation>"
            #expect(
                errors.contains { $0.flagKey == "f" && $0.description.contains(fragment) },
                "\(url.lastPathComponent): expected a report containing \(fragment), got \(errors)"
            )
        }
        print("flagd schema examples targeting/negative: \(files.count) rules rejected")
    }

    @Test func positiveTargetingRulesLoadCleanly() throws {
        let files = try ConformanceFiles.jsonFiles(in: "\(Self.root)/targeting/positive")
        #expect(!files.isEmpty)
        for url in files {
            let rule = try JSONValue(parsing: Data(contentsOf: url))
            let (definitions, errors) = FlagDefinitions.load([Self.flagDocument(targeting: rule)])
            #expect(errors.isEmpty, "\(url.lastPathComponent): \(errors)")
            #expect(definitions["f"]?.hasTargeting == true)
        }
        print("flagd schema examples targeting/positive: \(files.count) rules accepted")
    }

    /// The `examples` folder is documentation, not a schema test: `full.json` deliberately
    /// includes two rules the targeting schema rejects (their variants are named "fail"). They
    /// must load and be reported as non-conforming, and nothing else.
    @Test func documentationExamplesLoad() throws {
        let minimal = try Self.load(ConformanceFiles.url("flagd-schemas/json/examples/minimal.json"))
        #expect(minimal.isEmpty, "\(minimal)")
        let full = try Self.load(ConformanceFiles.url("flagd-schemas/json/examples/full.json"))
        #expect(full.map(\.effect) == [.nonConforming, .nonConforming])
        #expect(full.contains { $0.description.contains(#"ends_with: arguments must be strings or rules, got number 3"#) })
        #expect(full.contains { $0.description.contains(#"sem_ver: "2.0.0.0" is not a full semantic version"#) })
    }
}
