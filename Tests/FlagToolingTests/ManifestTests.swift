import ExampleFlags
import FeatureFlags
import FeatureFlagsTesting
import FlagManifest
import Foundation
import Testing

struct ManifestTests {
    @Test func roundTripKeepsEveryDefinitionField() throws {
        let registry = try FlagRegistry(AppFlag.self)
        let text = try FlagManifestExport.jsonString(AppFlag.self)
        let manifest = try ManifestReader().read(text, file: "flags.json")
        #expect(manifest.definitions.map(DefinitionFields.init) == registry.definitions.map(DefinitionFields.init))
        let reimported = try manifest.registry()
        #expect(reimported.count == registry.count)
        #expect(manifest.jsonString() == text)
    }

    @Test func exampleManifestIsUpToDate() throws {
        let expected = try FlagManifestExport.jsonString(AppFlag.self, flagSetID: "example-app")
        if ProcessInfo.processInfo.environment["FLAGS_UPDATE_EXAMPLES"] == "1" {
            try expected.write(to: TestPaths.exampleManifest, atomically: true, encoding: .utf8)
        }
        let onDisk = try String(contentsOf: TestPaths.exampleManifest, encoding: .utf8)
        #expect(onDisk == expected, "Regenerate Examples/Manifest/flags.json from ExampleFlags.AppFlag.")
    }

    @Test func booleanFlagsUseOnAndOffVariants() throws {
        let manifest = try ManifestReader().read(
            try FlagManifestExport.jsonString(AppFlag.self), file: "flags.json")
        let text = manifest.jsonString()
        #expect(text.contains(#""variants": {\#n        "on": true,\#n        "off": false\#n      },"#))
        #expect(text.contains(#""default": {"attempts":3,"backoffSeconds":1.5}"#))
        // Object build defaults travel as JSON text.
        let retry = TypedFlag<RetryPolicy>(
            "retry", default: RetryPolicy(attempts: 3, backoffSeconds: 1.5),
            buildDefaults: [.debug: RetryPolicy(attempts: 1, backoffSeconds: 0)])
        #expect(Manifest(definitions: [retry.definition]).jsonString().contains(#""default.debug": "{\"attempts\":1,\"backoffSeconds\":0}""#))
    }

    @Test func typeIsInferredFromThePlainFlagdFormat() throws {
        let text = """
            {"flags": {"page_size": {"state": "ENABLED", "variants": {"small": 10, "large": 50}, "defaultVariant": "large"},
                       "beta": {"state": "DISABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on",
                                "targeting": {"if": [true, "on", "off"]}, "metadata": {"x-team-note": "keep"}}}}
            """
        let manifest = try ManifestReader().read(text, file: "plain.json")
        #expect(manifest.flags.map(\.definition.type) == [.integer, .boolean])
        #expect(manifest.flags[0].definition.defaultValue == 50)
        #expect(manifest.flags[1].isEnabled == false)
        #expect(manifest.flags[1].customMetadata == ["x-team-note": "keep"])
    }

    @Test(arguments: [
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on""#,
         "bad.json:1: not valid JSON: expected ',' or '}' in an object (column 86)."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"phase": "2"}}}}"#,
         "bad.json:1: flags.a.metadata.phase: expected a whole number ≥ 0, found a string."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "metadata": {"ownr": "x"}}}}"#,
         "bad.json:1: flags.a.metadata.ownr: unknown metadata field; known fields are checking, conflicts, description, displayName, followsPhasePolicy, key, owner, phase, removalTarget, requires, sensitive, swiftName, type, userTogglable and default.<configuration>. Prefix your own fields with \"x-\"."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on", "rules": 1}}}"#,
         "bad.json:1: flags.a.rules: unknown field; a flag may only have defaultVariant, metadata, state, targeting, variants."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": 1}, "defaultVariant": "on", "metadata": {"type": "boolean"}}}}"#,
         "bad.json:1: flags.a.variants.on: expected a boolean value (the flag's type), found a number."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "off"}}}"#,
         "bad.json:1: flags.a.defaultVariant: names \"off\", which is not one of the variants (on)."),
        (#"{"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}, "a": {}}}"#,
         "bad.json:1: flags.a: the flag is declared twice (first on line 1); JSON readers would silently keep only one. Remove or rename one of them."),
        (#"{"flagz": {}}"#,
         "bad.json:1: flagz: unknown field; a manifest's top level may only have $evaluators, $schema, flags, metadata."),
        (#"[]"#, "bad.json:1: expected a JSON object with a \"flags\" member, found an array."),
    ])
    func badManifestsAreReportedWithFileAndField(text: String, message: String) {
        #expect(throws: ManifestError.self) { try ManifestReader().read(text, file: "bad.json") }
        do {
            _ = try ManifestReader().read(text, file: "bad.json")
        } catch {
            #expect(error.description == message)
        }
    }

    /// A repeated key anywhere (here inside a variant's object value, which the manifest's own
    /// checks do not look into) is an error naming the key, where it is and both lines.
    @Test func duplicateKeysAreRejectedAtEveryDepth() throws {
        let text = """
            {"flags": {"a": {"state": "ENABLED", "defaultVariant": "default",
              "variants": {"default": {"attempts": 1,
                "attempts": 2}},
              "metadata": {"type": "object"}}}}
            """
        #expect(throws: ManifestError(
            file: "bad.json", line: 3,
            message: #"the key "attempts" appears twice in flags.a.variants.default (first on line 2); JSON readers would silently keep only one. Remove one of them."#
        )) {
            try ManifestReader().read(text, file: "bad.json")
        }
        #expect {
            try JSONNodeParser.parse("{\"x\": 1,\n \"x\": [{\"y\": 1}]}")
        } throws: { error in
            let error = try #require(error as? JSONNodeSyntaxError)
            return error.description
                == #"line 2, column 2: the key "x" appears twice (first on line 1); JSON readers would silently keep only one. Remove one of them."#
                && error.duplicateKey == "x"
        }
        // Lenient reading for lint still sees both flags.
        let flags = """
            {"flags": {"a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"},
              "a": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}}}
            """
        #expect(try ManifestReader(allowsDuplicateFlags: true).read(flags, file: "f.json").duplicateKeys.map(\.key) == ["a"])
    }

    @Test func lenientReadRecordsDuplicateFlags() throws {
        let text = """
            {"flags": {
              "a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"},
              "a": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}
            }}
            """
        let manifest = try ManifestReader(allowsDuplicateFlags: true).read(text, file: "dup.json")
        #expect(manifest.flags.count == 1)
        #expect(manifest.duplicateKeys.map(\.key) == ["a"])
        #expect(manifest.duplicateKeys.map(\.lines) == [[2, 3]])
    }
}

/// Inputs the manifest fuzz target found (`Fuzz/Findings/manifest-*`).
struct ManifestFuzzFindingTests {
    /// A custom key set without `x-` (or with a combining mark after it) was written but refused
    /// by the reader: what is written must read back identical.
    @Test(arguments: ["team", "x-\u{033F}", "x-team"])
    func customMetadataReadsBackAsWritten(key: String) throws {
        let flag = ManifestFlag(
            definition: FlagDefinition(key: "a", type: .boolean, default: .bool(false)), customMetadata: [key: "note"])
        #expect(flag.customMetadata.keys.allSatisfy(ManifestFlag.isCustomMetadataKey))
        let manifest = Manifest(flags: [flag])
        let reread = try ManifestReader().read(manifest.jsonString(), file: "flags.json")
        #expect(reread.flags.map(\.customMetadata) == [flag.customMetadata])
    }
}
