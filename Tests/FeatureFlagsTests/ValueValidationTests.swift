import ExampleFlags
import FeatureFlags
import Foundation
import Testing

/// Flags whose values are checked beyond their JSON type.
enum CheckedFlag: String, CaseIterable, FeatureFlagKey {
    case enabled = "enabled"

    var metadata: FlagMetadata<CheckedFlag> { .init("Enabled") }

    static let typedFlags: [any FlagDefinitionConvertible] = [
        CheckedConfig.pageSize, CheckedConfig.backoff, CheckedConfig.greeting, CheckedConfig.style,
        CheckedConfig.policy,
    ]
}

enum CheckedConfig {
    static let pageSize = TypedFlag<Int>("page_size", default: 50, range: 1...500, buildDefaults: [.debug: 10])
    static let backoff = TypedFlag<Double>("backoff", default: 1.5, range: 0.1...30, userTogglable: true)
    static let greeting = TypedFlag<String>("greeting", default: "Hi", validate: { !$0.isEmpty && $0.count <= 20 })
    static let style = TypedFlag<ComposerStyle>("style", default: .classic, userTogglable: true)
    static let policy = TypedFlag<RetryPolicy>(
        "policy", default: RetryPolicy(attempts: 3, backoffSeconds: 1.5), userTogglable: true)
}

struct ValueValidationTests {
    func manager(
        _ configuration: BuildConfiguration = .debug, remote: [String: FlagValue] = [:],
        overrides: [String: FlagValue] = [:], preferences: [String: FlagValue] = [:], arguments: [String] = []
    ) -> FeatureFlagManager<CheckedFlag> {
        let flags = FeatureFlagManager<CheckedFlag>(
            FlagSetup(
                buildConfiguration: configuration, overrideStore: InMemoryFlagStore(overrides),
                userPreferenceStore: InMemoryFlagStore(preferences), launchArguments: arguments))
        if !remote.isEmpty { flags.engine.receiveRemoteValues(RemoteFlagValues(values: remote, source: "cache")) }
        return flags
    }

    // MARK: Ranges

    @Test func theRangeTravelsWithTheDefinition() throws {
        let registry = try FlagRegistry(CheckedFlag.self)
        #expect(registry.definition(forKey: "page_size")?.range == .integer(1...500))
        #expect(registry.definition(forKey: "backoff")?.range == .double(0.1...30))
        #expect(registry.definition(forKey: "greeting")?.range == nil)
        #expect(FlagValueRange.integer(1...500).description == "1...500")
    }

    @Test func anOutOfRangeRemoteValueIsRefusedAndTheLayerBelowWins() {
        let flags = manager(.debug, remote: ["page_size": 900, "backoff": 0.01])
        #expect(flags.value(CheckedConfig.pageSize) == 10)
        #expect(flags.details(CheckedConfig.pageSize).layer == .buildConfiguration)
        #expect(flags.value(CheckedConfig.backoff) == 1.5)
        #expect(
            flags.engine.diagnostics.map(\.message) == [
                "Ignored the cache value for 'backoff': expected double in 0.1...30.0, got 0.01.",
                "Ignored the cache value for 'page_size': expected integer in 1...500, got 900.",
            ])
    }

    @Test func valuesOnTheBoundsAreAccepted() {
        let flags = manager(remote: ["page_size": 500, "backoff": 0.1])
        #expect(flags.value(CheckedConfig.pageSize) == 500)
        #expect(flags.value(CheckedConfig.backoff) == 0.1)
        #expect(flags.engine.diagnostics.isEmpty)
    }

    @Test func anOutOfRangeOverrideIsRefusedNotClamped() {
        let flags = manager()
        #expect {
            try flags.engine.setOverride(0, forKey: "page_size")
        } throws: { error in
            "\(error)" == "Flag 'page_size' cannot be set: expected integer in 1...500, got 0."
        }
        flags.setOverride(CheckedConfig.pageSize, to: 501)
        #expect(flags.value(CheckedConfig.pageSize) == 10)
        #expect(flags.details(CheckedConfig.pageSize).layer == .buildConfiguration)
    }

    @Test func storedOverridesAndPreferencesOutOfRangeArePruned() {
        let flags = manager(overrides: ["page_size": 1000], preferences: ["backoff": 99])
        #expect(flags.value(CheckedConfig.pageSize) == 10)
        #expect(flags.value(CheckedConfig.backoff) == 1.5)
        #expect(
            flags.engine.diagnostics.map(\.message).sorted() == [
                "Removed the stored override for 'page_size': expected integer in 1...500, got 1000.",
                "Removed the stored user preference for 'backoff': expected double in 0.1...30.0, got 99.",
            ])
    }

    @Test func anOutOfRangeLaunchArgumentIsReported() {
        let flags = manager(arguments: ["-ff.page_size", "0", "-ff.backoff", "2"])
        #expect(flags.value(CheckedConfig.pageSize) == 10)
        #expect(flags.value(CheckedConfig.backoff) == 2)
        #expect(
            flags.engine.diagnostics.map(\.message).contains(
                "Launch argument '-ff.page_size 0' does not fit 'page_size': expected integer in 1...500, got 0; it was ignored."))
    }

    @Test func theDefaultMustLieInTheRange() {
        let outside = TypedFlag<Int>("limit", default: 0, range: 1...10)
        #expect {
            try FlagRegistry([outside.definition])
        } throws: { error in
            "\(error)"
                == "Flag 'limit' has a default its own declaration refuses: expected integer in 1...10, got 0. Change the default, or the flag's range or validation."
        }
        let buildOutside = TypedFlag<Double>("ratio", default: 0.5, range: 0...1, buildDefaults: [.alpha: 2])
        #expect {
            try FlagRegistry([buildOutside.definition])
        } throws: { error in
            "\(error)"
                == "Flag 'ratio' has a alpha default its own declaration refuses: expected double in 0.0...1.0, got 2.0. Change that default, or the flag's range or validation."
        }
    }

    @Test func aRangeMustFitTheFlagsType() {
        let definition = FlagDefinition(key: "name", type: .string, default: "x", range: .integer(1...2))
        #expect {
            try FlagRegistry([definition])
        } throws: { error in
            "\(error)".hasPrefix("Flag 'name' is declared as string but has the range 1...2")
        }
    }

    // MARK: Validation closures

    @Test func aValidationClosureRefusesValues() {
        let flags = manager(remote: ["greeting": ""])
        #expect(flags.value(CheckedConfig.greeting) == "Hi")
        #expect(flags.engine.diagnostics.map(\.message) == [#"Ignored the cache value for 'greeting': the flag's validation refused ""."#])
        flags.setOverride(CheckedConfig.greeting, to: "Hello")
        #expect(flags.value(CheckedConfig.greeting) == "Hello")
        #expect(throws: FlagOverrideError.self) { try flags.engine.setOverride("far too long a greeting to show", forKey: "greeting") }
        #expect(flags.value(CheckedConfig.greeting) == "Hello")
    }

    @Test func aDefaultTheValidationRefusesIsARegistryError() {
        let flag = TypedFlag<String>("greeting", default: "", validate: { !$0.isEmpty })
        #expect(throws: FlagRegistryError.self) { try FlagRegistry([flag.definition]) }
    }

    // MARK: Values that do not decode to the Swift type

    @Test func aRemoteObjectThatDoesNotDecodeIsRefused() {
        let flags = manager(remote: ["policy": ["attempts": "two", "backoffSeconds": 1]])
        let details = flags.details(CheckedConfig.policy)
        #expect(details.layer == .default)
        #expect(details.value == CheckedConfig.policy.defaultValue.flagValue)
        #expect(flags.value(CheckedConfig.policy) == RetryPolicy(attempts: 3, backoffSeconds: 1.5))
        #expect(
            flags.engine.diagnostics.map(\.message) == [
                #"Ignored the cache value for 'policy': expected object that decodes as RetryPolicy, got {"attempts":"two","backoffSeconds":1}."#
            ])
    }

    @Test func anUnknownEnumCaseIsRefused() {
        let flags = manager(remote: ["style": "huge"])
        #expect(flags.details(CheckedConfig.style).layer == .default)
        #expect(flags.value(CheckedConfig.style) == .classic)
    }

    @Test func overridesAndPreferencesThatDoNotDecodeAreRefused() {
        let flags = manager(preferences: ["policy": ["attempts": 1]])
        #expect(flags.details(CheckedConfig.policy).layer == .default)
        #expect(flags.engine.diagnostics.map(\.message) == [
            #"Removed the stored user preference for 'policy': expected object that decodes as RetryPolicy, got {"attempts":1}."#
        ])
        #expect {
            try flags.engine.setOverride(["attempts": 1], forKey: "policy")
        } throws: { error in
            "\(error)" == #"Flag 'policy' cannot be set: expected object that decodes as RetryPolicy, got {"attempts":1}."#
        }
        #expect {
            try flags.engine.setUserPreference("huge", forKey: "style")
        } throws: { error in
            "\(error)" == #"Flag 'style' cannot be set: expected string that decodes as ComposerStyle, got "huge"."#
        }
        #expect(flags.details(CheckedConfig.policy).layer == .default)
    }

    @Test func aValueThatDecodesIsUsed() {
        let flags = manager(remote: ["policy": ["attempts": 5, "backoffSeconds": 2.0], "style": "compact"])
        #expect(flags.value(CheckedConfig.policy) == RetryPolicy(attempts: 5, backoffSeconds: 2))
        #expect(flags.details(CheckedConfig.policy).layer == .remote)
        #expect(flags.value(CheckedConfig.style) == .compact)
    }
}
