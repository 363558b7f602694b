import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Testing

/// The app context on the wire: in the OFREP evaluation context, beside the app's attributes,
/// out of the cache's key; and in the `source` of event batches, `$session` and `$crash`
/// included.
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

    // MARK: - Events

    @Test func aBatchsSourceCarriesTheAppContext() throws {
        let source = FlagEventSource(buildConfiguration: .release, appContext: Self.device.excluding(.locale))
        let batch = FlagEventBatch(batchId: "b1", source: source, dropped: FlagEventDropCounts(), events: [])
        let json = try FlagValue(json: String(decoding: try batch.encoded(), as: UTF8.self))
        guard case .object(let members) = json else {
            Issue.record("not an object")
            return
        }
        #expect(
            members["source"] == [
                "appVersion": "4.2.1", "buildConfiguration": "release", "platform": "iOS", "appBuild": "412",
                "osVersion": "18.2.0", "deviceClass": "phone",
            ])
    }

    /// `$session` carries the running app's context; `$crash`, reported at the next launch, the
    /// crashed session's, whole, through the marker file and the queue file.
    @Test func sessionAndCrashEventsCarryTheAppContextTheyRanWith() async throws {
        let fixture = SessionHealthMonitorTests.Fixture()
        let crashed = FlagEventSource(buildConfiguration: .release, appContext: Self.device)
        let first = fixture.launch(source: crashed)
        await first.monitor.start(delivering: first.delivery)
        first.expose("new_checkout", "treatment", unit: "user-1")
        fixture.clock.advance(by: 60)
        await first.delivery.flush()

        var updatedContext = Self.device
        updatedContext.appVersion = "4.3.0"
        updatedContext.appBuild = "430"
        let updated = FlagEventSource(buildConfiguration: .release, appContext: updatedContext)
        let second = fixture.launch(source: updated)
        await second.monitor.start(delivering: second.delivery)
        let crashes = fixture.named("$crash")
        #expect(crashes.count == 1)
        #expect(crashes.first?.source == crashed)
        #expect(crashes.first?.source.appBuild == "412")
        #expect(crashes.first?.source.locale == "en_NZ")

        second.expose("new_checkout", "control", unit: "user-1")
        fixture.clock.advance(by: 30)
        await second.monitor.endSession()
        let sessions = fixture.named("$session")
        #expect(sessions.count == 1)
        #expect(sessions.first?.source == updated)
        #expect(sessions.first?.source.deviceClass == "phone")
    }
}
