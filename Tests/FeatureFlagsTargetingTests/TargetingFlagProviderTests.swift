import ExampleFlags
import FeatureFlags
import FeatureFlagsTargeting
import FeatureFlagsTesting
import FlagEvaluation
import Foundation
import Testing

struct TargetingFlagProviderTests {
    static let definitionsJSON = #"""
    {
      "$schema": "https://flagd.dev/schema/v0/flags.json",
      "flags": {
        "ideas_drawer": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "off",
          "targeting": {"if": [{"in": [{"var": "plan"}, ["pro", "team"]]}, "on", "off"]}
        },
        "onboarding_variant": {
          "state": "ENABLED",
          "variants": {"classic": "classic", "guided": "guided"},
          "defaultVariant": "classic",
          "targeting": {"fractional": [["classic", 50], ["guided", 50]]}
        },
        "page_size": {
          "state": "ENABLED",
          "variants": {"small": 20, "large": 100},
          "defaultVariant": "large"
        },
        "terminal_redesign": {
          "state": "DISABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "on"
        },
        "sheet_system": {
          "state": "ENABLED",
          "variants": {"yes": "yes", "no": "no"},
          "defaultVariant": "yes"
        },
        "voice_input": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": null
        },
        "not_in_the_registry": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "on"
        }
      }
    }
    """#

    func provider(context: EvaluationContext = EvaluationContext()) throws -> TargetingFlagProvider {
        let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "flags.json", json: Self.definitionsJSON)])
        return TargetingFlagProvider(
            definitions: definitions, registry: try FlagRegistry(AppFlag.self), context: context,
            now: { Date(timeIntervalSince1970: 1_800_000_000) })
    }

    @Test func evaluatesTheRegistrysFlagsForAContext() throws {
        let provider = try provider()
        let pro = provider.values(for: EvaluationContext(targetingKey: "u1", attributes: ["plan": "pro"]))
        #expect(pro.values["ideas_drawer"] == RemoteFlagValue(true, variant: "on", reason: .targetingMatch))
        let free = provider.values(for: EvaluationContext(targetingKey: "u2", attributes: ["plan": "free"]))
        #expect(free.values["ideas_drawer"] == RemoteFlagValue(false, variant: "off", reason: .targetingMatch))
        #expect(pro.values["page_size"] == RemoteFlagValue(100, variant: "large", reason: .static))
    }

    @Test func flagsThatCannotProvideAValueSayNothing() throws {
        let values = try provider().values(for: EvaluationContext(targetingKey: "u1")).values
        #expect(values["terminal_redesign"] == nil, "disabled")
        #expect(values["sheet_system"] == nil, "string variants for a Boolean flag")
        #expect(values["voice_input"] == nil, "no default variant")
        #expect(values["not_in_the_registry"] == nil)
        #expect(values["chat_view_redesign"] == nil, "not in the definitions")
    }

    @Test func fractionalRolloutsAreDeterministicPerUser() throws {
        let provider = try provider()
        var seen: Set<String> = []
        for user in 0..<50 {
            let context = EvaluationContext(targetingKey: "user-\(user)")
            let first = provider.values(for: context).values["onboarding_variant"]
            #expect(first == provider.values(for: context).values["onboarding_variant"])
            #expect(first?.reason == .split || first?.reason == .targetingMatch)
            if case .string(let variant)? = first?.value { seen.insert(variant) }
        }
        #expect(seen == ["classic", "guided"])
    }

    @Test func feedsTheRemoteLayerOfTheTypedRegistry() throws {
        let provider = try provider(context: EvaluationContext(targetingKey: "u1", attributes: ["plan": "team"]))
        let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: provider))
        #expect(flags.isEnabled(.ideasDrawer))
        #expect(flags.details(.ideasDrawer).layer == .remote)
        #expect(flags.details(.ideasDrawer).variant == "on")
        #expect(flags.value(AppConfig.pageSize) == 100)
        #expect(!flags.isEnabled(.terminalRedesign))
    }

    @Test func perRequestSnapshotsLeaveTheSharedFlagsAlone() throws {
        let provider = try provider()
        let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .release)
        let pro = flags.snapshot(applying: provider.values(for: EvaluationContext(targetingKey: "a", attributes: ["plan": "pro"])))
        let free = flags.snapshot(applying: provider.values(for: EvaluationContext(targetingKey: "b", attributes: ["plan": "free"])))
        #expect(pro.isEnabled(.ideasDrawer))
        #expect(!free.isEnabled(.ideasDrawer))
        #expect(pro.value(AppConfig.pageSize) == 100)
        #expect(!flags.isEnabled(.ideasDrawer))
        #expect(flags.value(AppConfig.pageSize) == 50)
    }

    @Test func loadsDefinitionFilesAndReportsBadOnes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("targeting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("flags.json")
        try Data(Self.definitionsJSON.utf8).write(to: good)
        let provider = try TargetingFlagProvider(files: [good], registry: try FlagRegistry(AppFlag.self))
        #expect(provider.cachedFlags()?.values["page_size"]?.value == 100)

        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"{"flags": {"x": {"state": "ON", "variants": {}}}}"#.utf8).write(to: bad)
        #expect(throws: FlagDefinitionLoadFailure.self) {
            try TargetingFlagProvider(files: [bad], registry: try FlagRegistry(AppFlag.self))
        }
    }

    @Test func convertsBetweenJSONAndFlagValues() {
        let value: FlagValue = ["a": [1, 2.5, "x", true, .null]]
        #expect(FlagValue(JSONValue(value)) == value)
    }
}
