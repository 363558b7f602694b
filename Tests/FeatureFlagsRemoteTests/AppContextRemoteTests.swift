import FeatureFlags
import FeatureFlagsRemote
import Foundation
import RemoteTestSupport
import Testing

/// The app context on the wire: in the OFREP evaluation context, beside the app's attributes,
/// and out of the cache's key (the events' source: AppContextEventsTests).
struct AppContextRemoteTests {
    static let device = AppContext(
        appVersion: "4.2.1", appBuild: "412", osName: "iOS", osVersion: "18.2.0", deviceClass: .phone, locale: "en_NZ")

    @Test func anOFREPRequestCarriesTheAppContextAndTheAppsAttributesWin() async throws {
        try await Fixture.run(.json(Payloads.ofrep, headers: [("ETag", "abc")])) { fixture in
            let context = RemoteEvaluationContext(
                targetingKey: "user-123", attributes: ["plan": "premium", "locale": "fr_FR"],
                appContext: Self.device.excluding(.osVersion))
            let loader = fixture.loader(source: .ofrep(context: context))
            _ = try await loader.loadFlags()
            let request = try #require(fixture.server.requests.first)
            let body = try FlagValue(json: String(decoding: request.body, as: UTF8.self))
            #expect(
                body == [
                    "context": [
                        "targetingKey": "user-123", "plan": "premium", "locale": "fr_FR", "appVersion": "4.2.1",
                        "appBuild": "412", "osName": "iOS", "deviceClass": "phone",
                    ]
                ])
        }
    }

    @Test func theDefaultContextCarriesThisProcesssAppContext() {
        let context = RemoteEvaluationContext(targetingKey: "u1")
        #expect(context.appContext == AppContext.current)
        guard case .object(let members) = context.jsonObject else {
            Issue.record("not an object")
            return
        }
        #expect(members["osName"] == .string(FlagEventSource.currentPlatform))
        #expect(members["osVersion"] != nil)
        #expect(RemoteEvaluationContext(targetingKey: "u1", appContext: nil).jsonObject == ["targetingKey": "u1"])
    }

    /// Values cached under one app version serve after an update, until the first refresh: the
    /// cache is keyed by who the flags are for, not by the app context.
    @Test func theCacheOutlivesAnAppUpdate() async throws {
        try await Fixture.run(.json(Payloads.ofrep, headers: [("ETag", "abc")])) { fixture in
            let before = RemoteEvaluationContext(targetingKey: "user-123", appContext: Self.device)
            _ = try await fixture.loader(source: .ofrep(context: before)).loadFlags()

            var updated = Self.device
            updated.appVersion = "4.3.0"
            updated.osVersion = "18.3.0"
            let after = RemoteEvaluationContext(targetingKey: "user-123", appContext: updated)
            let relaunched = fixture.loader(source: .ofrep(context: after))
            #expect(relaunched.cachedFlags()?.values["cues.page_size"] == RemoteFlagValue(40, variant: "b", reason: .cached))

            // Another unit is another context: its cache is not this one's.
            let other = RemoteEvaluationContext(targetingKey: "user-456", appContext: updated)
            #expect(fixture.loader(source: .ofrep(context: other)).cachedFlags() == nil)
        }
    }

    @Test func theContextsDescriptionRedactsTheAppContext() {
        let context = RemoteEvaluationContext(targetingKey: "user-8812", appContext: Self.device)
        var dumped = ""
        dump(context, to: &dumped)
        for text in ["\(context)", String(reflecting: context), dumped] {
            for value in ["4.2.1", "412", "18.2.0", "en_NZ", "user-8812"] {
                #expect(!text.contains(value), "'\(value)' printed in \(text)")
            }
        }
        #expect("\(context)".contains("locale: <REDACTED>"))
    }
}
