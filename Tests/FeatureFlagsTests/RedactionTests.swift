import FeatureFlags
import Foundation
import Testing

/// Values of flags marked sensitive never appear in a description, message or error.
struct RedactionTests {
    static let secret = "s3cr3t-token"

    /// Every way a value can be turned into text.
    static func renderings(of value: some Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return ["\(value)", String(describing: value), String(reflecting: value), dumped]
    }

    @Test func launchArgumentProblemsOfASensitiveFlagHideTheValue() throws {
        let registry = try FlagRegistry([
            FlagDefinition(key: "api_limit", type: .integer, default: 10, isSensitive: true),
            FlagDefinition(key: "api_config", type: .object, default: ["k": "v"], isSensitive: true),
            FlagDefinition(key: "api_ratio", type: .double, default: 0.5, isSensitive: true, range: .double(0...1)),
        ])
        let (overrides, problems) = LaunchArgumentOverrides.parse(
            [
                "-ff.api_limit", "\(Self.secret)", "-ff.api_config={\"\(Self.secret)\": 1, \"\(Self.secret)\": 2}",
                "-ff.api_ratio", "7.5",
            ], registry: registry)
        #expect(overrides.isEmpty)
        #expect(
            problems == [
                "Launch argument '-ff.api_limit <REDACTED>' is not a valid integer for 'api_limit'; it was ignored.",
                "Launch argument '-ff.api_config <REDACTED>' is not a valid object for 'api_config' (<REDACTED>); it was ignored.",
                "Launch argument '-ff.api_ratio <REDACTED>' does not fit 'api_ratio': expected double in 0.0...1.0, got <REDACTED>; it was ignored.",
            ])
    }

    @Test func theLayerReportDoesNotQuoteTheResult() throws {
        let registry = try FlagRegistry([
            FlagDefinition(
                key: "vip_mode", type: .boolean, default: false, isUserTogglable: true, checking: .buildAndUser,
                isSensitive: true)
        ])
        let engine = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release))
        try engine.setUserPreference(true, forKey: "vip_mode")
        let details = engine.details(forKey: "vip_mode")
        let preference = try #require(details.layers.first { $0.layer == .userPreference })
        #expect(preference.status == .ignored("the result is <REDACTED>"))
        for text in ["\(details)"] + details.layers.flatMap(Self.renderings(of:)) {
            #expect(!text.contains("false") && !text.contains("true"), "\(text)")
        }
    }

    @Test func theLayerReportOfAnOrdinaryFlagQuotesTheResult() throws {
        let registry = try FlagRegistry([
            FlagDefinition(key: "dark_mode", type: .boolean, default: false, isUserTogglable: true, checking: .buildAndUser)
        ])
        let engine = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release))
        try engine.setUserPreference(true, forKey: "dark_mode")
        let preference = engine.details(forKey: "dark_mode").layers.first { $0.layer == .userPreference }
        #expect(preference?.status == .ignored("the result is false"))
    }

    @Test func detailsOfASensitiveFlagHideTheValueEverywhere() {
        let details = FlagEvaluationDetails(
            key: "token", value: .string(Self.secret), layer: .remote, reason: .static,
            layers: [FlagLayerReport(layer: .remote, value: .string(Self.secret), status: .selected, isSensitive: true)],
            isSensitive: true)
        for text in Self.renderings(of: details) {
            #expect(!text.contains(Self.secret), "\(text)")
            #expect(text.contains("<REDACTED>"), "\(text)")
        }
    }

    @Test func registryErrorsDoNotQuoteASensitiveDefault() {
        let cases: [FlagDefinition] = [
            FlagDefinition(key: "token", type: .integer, default: .string(Self.secret), isSensitive: true),
            FlagDefinition(
                key: "token", type: .string, default: "", buildDefaults: [.debug: .int(42_424_242)], isSensitive: true),
            FlagDefinition(key: "pin", type: .integer, default: 42_424_242, isSensitive: true, range: .integer(0...9)),
        ]
        for definition in cases {
            #expect {
                try FlagRegistry([definition])
            } throws: { error in
                let text = "\(error)"
                return !text.contains(Self.secret) && !text.contains("42424242") && text.contains("<REDACTED>")
            }
        }
    }

    @Test func remoteValuesNeverPrintTheirValues() {
        let values = RemoteFlagValues(
            ["token": RemoteFlagValue(.string(Self.secret), variant: "v1", reason: .targetingMatch)], source: "app_config")
        for text in Self.renderings(of: values) + Self.renderings(of: values.values["token"]!) {
            #expect(!text.contains(Self.secret), "\(text)")
        }
        #expect("\(values)" == "RemoteFlagValues(source: app_config, 1 value: token)")
        #expect(
            "\(values.values["token"]!)" == #"RemoteFlagValue(<REDACTED>, variant: "v1", reason: TARGETING_MATCH)"#)
        #expect("\(RemoteFlagValues.empty)" == "RemoteFlagValues(source: remote, 0 values)")
    }

    @Test func refusedRemoteValuesOfASensitiveFlagAreReportedWithoutTheValue() throws {
        let registry = try FlagRegistry([
            FlagDefinition(key: "pin", type: .integer, default: 1, isSensitive: true, range: .integer(0...9))
        ])
        let engine = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release))
        engine.receiveRemoteValues(RemoteFlagValues(values: ["pin": 42_424_242]))
        #expect(engine.value(forKey: "pin") == .int(1))
        let messages = engine.diagnostics.map(\.message)
        #expect(messages == ["Ignored the remote value for 'pin': expected integer in 0...9, got <REDACTED>."])
    }
}
