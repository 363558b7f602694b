import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// The flag page's "Insights" section over an event store that answers hand-made rollups.
struct ConsoleInsightsTests {
    static let hour = FlagInsightsTests.hour
    static let day = FlagInsightsTests.day
    static let start = FlagInsightsTests.start
    /// 2026-11-25T10:30:00Z: the last 7 days per hour start on 18 Nov 11:00.
    static let now = InsightsAPITests.now

    static func signedIn(_ server: TestServer, role: ConsoleRole = .viewer) async throws -> ConsoleClient {
        try await server.consoleUser("vera", role: role)
        let client = ConsoleClient(server)
        try await client.signIn("vera")
        return client
    }

    static func rollup(_ bucket: Int64, _ variant: String, _ evaluations: Int, app: String = "2.0", platform: String = "iOS")
        -> EvaluationRollup
    {
        FlagInsightsTests.rollup(bucket, variant, evaluations: evaluations, app: app, platform: platform)
    }

    @Test
    func theFlagPageChartsEvaluationsWithTheChangesUnitsAndSplits() async throws {
        let store = FixedEventStore(
            hourly: [
                Self.rollup(Self.start + 5 * Self.day + 2 * Self.hour, "on", 40),
                Self.rollup(Self.start + 5 * Self.day + 3 * Self.hour, "on", 80, app: "1.9", platform: "<b>Android</b>"),
                Self.rollup(Self.start + 5 * Self.day + 3 * Self.hour, "off", 20),
            ],
            units: [UnitCount(day: Self.start + 5 * Self.day, flag: "checkout", variant: "on", units: 17)],
            lastEvaluated: ["checkout": Self.start + 5 * Self.day + 4 * Self.hour])
        try await TestServer.withEvents(store, now: Self.now) { server in
            try await server.booleanFlag("checkout")
            let client = try await Self.signedIn(server)
            let page = try await client.get("/console/flags/checkout?environment=production")
            #expect(page.status == 200)
            let body = page.body
            #expect(body.contains(#"<h2 id="insights-heading">Insights in production</h2>"#))
            #expect(body.contains(#"<link rel="stylesheet" href="/console/assets/insights.css">"#))
            // The chart: an image with a title and description, a line per variant served.
            #expect(body.contains(#"role="img" aria-labelledby="insights-chart-title insights-chart-desc""#))
            #expect(body.contains("Evaluations of checkout in production per hour, 18 Nov 11:00 to 25 Nov 11:00"))
            #expect(body.contains(#"data-variant="on" points=""#))
            #expect(body.contains(#"data-variant="off" points=""#))
            #expect(body.contains("off: 20 evaluations (at most 20 in one hour); on: 120 evaluations (at most 80 in one hour)."))
            // The flag's creation and switch on, at the server's clock, marked and listed.
            #expect(body.contains(#"<g class="marker" data-revisions="#))
            #expect(body.contains("turned checkout on in production: serves on</li>"))
            // The numbers as a table (168 hours), the legend, the totals.
            #expect(body.components(separatedBy: "<tr><th scope=\"row\">").count - 1 >= 168)
            #expect(body.contains(#"<span class="swatch series-1" aria-hidden="true"></span>on <span class="hint">120</span>"#))
            #expect(body.contains("<strong>140</strong> evaluations"))
            // Units, app versions and platforms, escaped.
            #expect(body.contains("<tr><th scope=\"row\">on</th><td>17</td><td>17</td>"))
            #expect(body.contains("<tr><th scope=\"row\">2.0</th><td>60</td><td>42.9\u{00A0}%</td>"))
            #expect(body.contains("&lt;b&gt;Android&lt;/b&gt;"))
            #expect(!body.contains("<b>Android"))
            #expect(body.contains("Last evaluated 2026-11-25 04:00 UTC."))
            // The range links keep the environment.
            #expect(body.contains(#"<a href="?environment=production&amp;insights=30d#insights">30 days</a>"#))
        }
    }

    @Test
    func theRangeLinksChooseTheWindowAndItsBuckets() async throws {
        let store = FixedEventStore(daily: [Self.rollup(Self.start, "on", 5)], lastEvaluated: [:])
        try await TestServer.withEvents(store, now: Self.now) { server in
            try await server.booleanFlag("checkout")
            let client = try await Self.signedIn(server)
            let page = try await client.get("/console/flags/checkout?environment=production&insights=30d")
            #expect(page.body.contains("Evaluations of checkout in production per day, 27 Oct 00:00 to 26 Nov 00:00"))
            #expect(page.body.contains(#"<a href="?environment=production&amp;insights=30d#insights" aria-current="true">30 days</a>"#))
            #expect(page.body.contains("Never evaluated in production as far as the events received tell."))
            #expect(store.queries.first == .init(
                kind: "rollups", environment: "production", flag: "checkout", granularity: .day, from: Self.start - 24 * Self.day,
                to: Self.start + 6 * Self.day))
        }
    }

    @Test
    func noEventsInTheRangeSaySoAndStillListTheChanges() async throws {
        try await TestServer.withEvents(FixedEventStore(), now: Self.now) { server in
            try await server.booleanFlag("checkout")
            let client = try await Self.signedIn(server)
            let body = try await client.get("/console/flags/checkout?environment=production&insights=24h").body
            #expect(body.contains(#"<p class="empty" id="insights-empty">No evaluations of checkout in production were received in the last 24 hours.</p>"#))
            #expect(!body.contains("<svg class=\"chart\""))
            #expect(body.contains("turned checkout on in production: serves on</li>"))
        }
    }

    @Test
    func aServerWithoutEventsSaysItKeepsNone() async throws {
        try await TestServer.withEvents(nil, now: Self.now) { server in
            try await server.booleanFlag("checkout")
            let client = try await Self.signedIn(server)
            let body = try await client.get("/console/flags/checkout").body
            #expect(body.contains(#"<h2 id="insights-heading">Insights in production</h2>"#))
            #expect(body.contains("This server keeps no events, so it has no insights to show"))
            #expect(!body.contains("<svg class=\"chart\""))
        }
    }

    @Test
    func theStyleSheetIsServed() async throws {
        try await TestServer.withEvents(nil, now: Self.now) { server in
            let client = try await Self.signedIn(server)
            let css = try await client.get("/console/assets/insights.css")
            #expect(css.status == 200)
            #expect(css.body.contains(".series-0 { --series: var(--series-0); }"))
        }
    }
}
