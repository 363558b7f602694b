import ExampleFlags
import FeatureFlags
import FeatureFlagsTargeting
import FeatureFlagsTesting
import FlagEvaluation
import Foundation
import Testing

/// The app context reaches the evaluator: rules target `appVersion` with `sem_ver` and no code.
struct AppContextTargetingTests {
    /// `ideas_drawer` is on from app version 4.2.0.
    static let definitionsJSON = #"""
    {
      "flags": {
        "ideas_drawer": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "off",
          "targeting": {"if": [{"sem_ver": [{"var": "appVersion"}, ">=", "4.2.0"]}, "on", "off"]}
        },
        "offline_mode": {
          "state": "ENABLED",
          "variants": {"on": true, "off": false},
          "defaultVariant": "off",
          "targeting": {"if": [{"==": [{"var": "deviceClass"}, "pad"]}, "on", "off"]}
        }
      }
    }
    """#

    static let device = FixedAppContextProvider(
        AppContext(
            appVersion: "4.2.1", appBuild: "412", osName: "iOS", osVersion: "18.2.0", deviceClass: .pad, locale: "en_NZ"))

    func flags(appContext: AppContext?, context: EvaluationContext = EvaluationContext(targetingKey: "u1")) throws
        -> FeatureFlagManager<AppFlag>
    {
        let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "flags.json", json: Self.definitionsJSON)])
        let targeting = TargetingFlagProvider(
            definitions: definitions, registry: try FlagRegistry(AppFlag.self), context: context, appContext: appContext)
        return FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .release, remoteProvider: targeting))
    }

    @Test func semVerTargetsTheAppVersionFromTheAppContext() throws {
        let current = try flags(appContext: AppContext(reading: Self.device))
        #expect(current.isEnabled(.ideasDrawer))
        #expect(current.details(.ideasDrawer).layer == .remote)
        #expect(current.details(.ideasDrawer).variant == "on")
        #expect(current.isEnabled(.offlineMode), "deviceClass is pad")

        let older = try flags(appContext: AppContext(reading: Self.device, setting: AppContext(appVersion: "4.1.9")))
        #expect(!older.isEnabled(.ideasDrawer))
        #expect(older.details(.ideasDrawer).variant == "off")
        #expect(older.details(.ideasDrawer).layer == .remote)
    }

    @Test func anAttributeTheContextSetsWinsOverTheAppContext() throws {
        let flags = try flags(
            appContext: AppContext(reading: Self.device),
            context: EvaluationContext(targetingKey: "u1", attributes: ["appVersion": "3.0.0"]))
        #expect(flags.details(.ideasDrawer).variant == "off")
    }

    @Test func anExcludedOrMissingAppContextSendsNothing() throws {
        let excluded = try flags(appContext: AppContext(reading: Self.device, excluding: [.appVersion]))
        // Without appVersion, sem_ver has nothing to compare: the default variant.
        #expect(excluded.details(.ideasDrawer).variant == "off")
        #expect(excluded.isEnabled(.offlineMode), "the other fields still go")

        let none = try flags(appContext: nil)
        #expect(none.details(.offlineMode).variant == "off")
    }

    @Test func theProvidersContextHoldsTheAppContextAndItsOwnAttributes() throws {
        let definitions = try FlagDefinitions.loadStrictly([FlagSource(name: "flags.json", json: Self.definitionsJSON)])
        let targeting = TargetingFlagProvider(
            definitions: definitions, registry: try FlagRegistry(AppFlag.self),
            context: EvaluationContext(targetingKey: "u1", attributes: ["locale": "fr_FR", "plan": "pro"]),
            appContext: AppContext(reading: Self.device).excluding(.osVersion))
        #expect(
            targeting.context.attributes == [
                "plan": "pro", "locale": "fr_FR", "appVersion": "4.2.1", "appBuild": "412", "osName": "iOS",
                "deviceClass": "pad",
            ])
        #expect(targeting.context.targetingKey == "u1")
    }
}
