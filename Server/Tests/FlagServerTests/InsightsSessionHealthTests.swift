import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Insights' sessions and crashes per app version, platform and variant: the stores' count
/// (``SessionHealthCounting``, SQLite and PostgreSQL), the table's order and sums, the admin API's
/// `sessionHealth` and the flag page's table.
struct InsightsSessionHealthTests {
    typealias Compatibility = FlagEventStoreCompatibilityTests

    static func tracked(_ name: String, _ variants: [String: String], at time: Int64) -> EventBatch.Tracked {
        EventBatch.Tracked(name: name, unit: "u1", variants: variants, time: time)
    }

    static func source(_ version: String, _ platform: String) -> EventBatch.EventSource {
        EventBatch.EventSource(appVersion: version, buildConfiguration: "release", platform: platform)
    }

    @Test(arguments: StoreKind.allCases)
    func storesCountSessionsAndCrashesPerVariantAppVersionAndPlatform(_ kind: StoreKind) async throws {
        try await Compatibility.with(kind) { store, _ in
            let counting = try #require(store as? any SessionHealthCounting)
            let t0 = Compatibility.t0
            _ = try await store.ingest([
                Compatibility.batch("1", source: Self.source("4.2", "iOS"), tracked: [
                    Self.tracked("$session", ["checkout": "on"], at: t0),
                    Self.tracked("$session", ["checkout": "on"], at: t0 + 1),
                    Self.tracked("$crash", ["checkout": "on"], at: t0 + 2),
                    Self.tracked("$session", ["checkout": "off"], at: t0 + 3),
                    Self.tracked("$session", ["search.v2": "a"], at: t0 + 4),
                    Self.tracked("$error", ["checkout": "on"], at: t0 + 5),
                    Self.tracked("purchase", ["checkout": "on"], at: t0 + 6),
                ]),
                Compatibility.batch("2", source: Self.source("4.3", "Android"), tracked: [
                    Self.tracked("$crash", ["checkout": "on"], at: t0 + 10),
                    Self.tracked("$crash", ["checkout": "on"], at: t0 + 11),
                    // Outside the range: before and at its end.
                    Self.tracked("$crash", ["checkout": "on"], at: t0 - 1),
                    Self.tracked("$crash", ["checkout": "on"], at: t0 + 100),
                ]),
                Compatibility.batch("3", environment: "staging", source: Self.source("4.2", "iOS"), tracked: [
                    Self.tracked("$crash", ["checkout": "on"], at: t0)
                ]),
            ])
            let counts = try await counting.sessionHealth(
                environment: "prod", flag: "checkout", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", from: t0, to: t0 + 100,
                limit: 10)
            #expect(counts == [
                SessionHealthCount(variant: "on", appVersion: "4.2", platform: "iOS", sessions: 3, crashes: 1),
                SessionHealthCount(variant: "on", appVersion: "4.3", platform: "Android", sessions: 2, crashes: 2),
                SessionHealthCount(variant: "", appVersion: "4.2", platform: "iOS", sessions: 1, crashes: 0),
                SessionHealthCount(variant: "off", appVersion: "4.2", platform: "iOS", sessions: 1, crashes: 0),
            ])
            // The groups with the most sessions, ties in byte order.
            let two = try await counting.sessionHealth(
                environment: "prod", flag: "checkout", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", from: t0, to: t0 + 100,
                limit: 2)
            #expect(two == Array(counts.prefix(2)))
            let search = try await counting.sessionHealth(
                environment: "prod", flag: "search.v2", sessions: RolloutGuardrail.sessionEvents, crash: "$crash", from: t0, to: t0 + 100,
                limit: 10)
            #expect(search.map(\.variant) == ["", "", "a"])
            #expect(search.map(\.sessions) == [4, 2, 1])
        }
    }

    @Test
    func theTableListsNewestVersionsFirstThenPlatformsThenTheFlagsVariantsWithNoVariantLast() {
        let counts = [
            SessionHealthCount(variant: "", appVersion: "4.10", platform: "iOS", sessions: 5, crashes: 1),
            SessionHealthCount(variant: "on", appVersion: "4.10", platform: "iOS", sessions: 100, crashes: 4),
            SessionHealthCount(variant: "off", appVersion: "4.10", platform: "iOS", sessions: 90, crashes: 1),
            SessionHealthCount(variant: "on", appVersion: "4.9", platform: "iOS", sessions: 50, crashes: 0),
            SessionHealthCount(variant: "on", appVersion: "4.10", platform: "Android", sessions: 10, crashes: 1),
            SessionHealthCount(variant: "on", appVersion: "", platform: "", sessions: 2, crashes: 0),
        ]
        let health = FlagInsights.sessionHealth(counts, variants: ["off", "on"])
        #expect(health.rows.map { "\($0.appVersion)/\($0.platform)/\($0.variant)" } == [
            "4.10/Android/on", "4.10/iOS/off", "4.10/iOS/on", "4.10/iOS/", "4.9/iOS/on", "//on",
        ])
        #expect(health.rows[2].crashRate == 0.04)
        #expect(health.sessions == 257 && health.crashes == 7)
        #expect(health.sessionsWithoutVariant == 5 && health.crashesWithoutVariant == 1)
        #expect(health.complete)
        // One group more than the limit: the ones with the most sessions, marked incomplete.
        let many = (0...FlagInsights.sessionHealthLimit).map {
            SessionHealthCount(variant: "on", appVersion: "1.\($0)", platform: "iOS", sessions: 1000 - $0, crashes: 0)
        }
        let cut = FlagInsights.sessionHealth(many, variants: ["on"])
        #expect(!cut.complete && cut.rows.count == FlagInsights.sessionHealthLimit)
        #expect(!cut.rows.contains { $0.appVersion == "1.\(FlagInsights.sessionHealthLimit)" })
    }

    /// 2026-11-25T10:30:00Z, the servers' clock; events an hour before it.
    static let now = InsightsAPITests.now
    static let eventTime = InsightsRange.milliseconds(now) - 3_600_000

    static func withSessions<T: Sendable>(_ body: (TestServer) async throws -> T) async throws -> T {
        let events = try await SQLiteFlagEventStore(path: nil)
        try await events.migrate()
        let t = eventTime
        _ = try await events.ingest([
            Compatibility.batch("1", environment: "production", receivedAt: t, source: source("2.1", "iOS"),
                exposures: [EventBatch.Exposure(flag: "checkout", variant: "on", reason: "STATIC", unit: "u1", time: t)],
                tracked: [
                    tracked("$session", ["checkout": "on"], at: t), tracked("$session", ["checkout": "on"], at: t),
                    tracked("$crash", ["checkout": "on"], at: t), tracked("$crash", [:], at: t),
                ]),
            Compatibility.batch("2", environment: "production", receivedAt: t, source: source("2.0", "<b>Android</b>"),
                tracked: [tracked("$session", ["checkout": "off"], at: t)]),
        ])
        do {
            let result = try await TestServer.withEvents(events, now: now) { server in
                try await server.booleanFlag("checkout")
                return try await body(server)
            }
            await events.close()
            return result
        } catch {
            await events.close()
            throw error
        }
    }

    @Test
    func theInsightsAPIAnswersSessionsAndCrashesPerVersionPlatformAndVariant() async throws {
        try await Self.withSessions { server in
            let reply = try await server.request(
                .GET, "/admin/v1/environments/production/flags/checkout/insights", token: server.adminToken)
            #expect(reply.status == 200)
            let health = try #require(reply.json?["sessionHealth"])
            let rows = try #require(health["rows"]?.arrayValue)
            #expect(rows.map { "\($0["appVersion"]?.stringValue ?? "?")/\($0["platform"]?.stringValue ?? "?")/\($0["variant"]?.stringValue ?? "?")" } == [
                "2.1/iOS/on", "2.1/iOS/", "2.0/<b>Android</b>/off",
            ])
            #expect(rows.map { $0["sessions"]?.intValue } == [3, 1, 1])
            #expect(rows.map { $0["crashes"]?.intValue } == [1, 1, 0])
            #expect(rows.first?["crashRate"]?.doubleValue == 1.0 / 3)
            #expect(health["sessions"]?.intValue == 5 && health["crashes"]?.intValue == 2)
            #expect(health["sessionsWithoutVariant"]?.intValue == 1 && health["crashesWithoutVariant"]?.intValue == 1)
            #expect(health["complete"]?.boolValue == true)
        }
    }

    @Test
    func theFlagPageShowsTheTableEscaped() async throws {
        try await Self.withSessions { server in
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            try await client.signIn("vera")
            let body = try await client.get("/console/flags/checkout?environment=production").body
            #expect(body.contains(#"<h3 id="insights-session-health-heading">Sessions and crashes by app version</h3>"#))
            #expect(body.contains("<strong>5</strong> sessions · <strong>2</strong> crashes · crash rate <strong>40.00\u{00A0}%</strong>"))
            #expect(body.contains(#"<tr><th scope="row">2.1</th><td>iOS</td><td>on</td><td>3</td><td>1</td><td>33.33\#u{00A0}%</td></tr>"#))
            #expect(body.contains(#"<tr class="without-variant"><th scope="row">2.1</th><td>iOS</td><td>(no variant)</td><td>1</td><td>1</td>"#))
            #expect(body.contains("<td>&lt;b&gt;Android&lt;/b&gt;</td><td>off</td>"))
            #expect(body.contains("1 of the sessions and 1 of the crashes named no variant of this flag."))
        }
    }
}
