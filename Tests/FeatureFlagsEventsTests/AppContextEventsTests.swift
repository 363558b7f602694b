import FeatureFlags
import FeatureFlagsEvents
import Foundation
import RemoteTestSupport
import Testing

/// The app context in the `source` of event batches, `$session` and `$crash` included.
struct AppContextEventsTests {
    static let device = AppContext(
        appVersion: "4.2.1", appBuild: "412", osName: "iOS", osVersion: "18.2.0", deviceClass: .phone, locale: "en_NZ")

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
