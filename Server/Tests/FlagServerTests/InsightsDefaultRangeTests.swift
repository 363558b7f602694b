import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Insights accept their own default: the 7 days up to now read per hour (`granularity=hour`
/// alone), whose ends fall inside hours and so touch 169 of them, was refused 422.
struct InsightsDefaultRangeTests {
    static let start: Int64 = 1_795_132_800_000  // 2026-11-20T00:00:00Z
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    @Test
    func theDefaultSevenDaysReadPerHourAreAccepted() throws {
        let now = Self.start + 10 * Self.day + 5 * Self.hour + 7
        let range = try InsightsRange(from: nil, to: nil, granularity: .hour, now: now)
        #expect(range.granularity == .hour)
        #expect(range.buckets.count == 169)
        #expect(range.from == Self.start + 3 * Self.day + 5 * Self.hour)
        #expect(range.to == Self.start + 10 * Self.day + 6 * Self.hour)
        // Longer than 7 days asked for is still refused, however it falls on the hours.
        #expect(throws: InsightsRange.Problem.self) {
            try InsightsRange(from: now - 7 * Self.day - 1, to: now, granularity: .hour)
        }
        // The same holds per day: 90 days up to a time inside a day touch 91 days.
        #expect(try InsightsRange(from: now - 90 * Self.day, to: now, granularity: .day).buckets.count == 91)
    }

    @Test
    func granularityHourAloneIsAnsweredOverTheDefaultRange() async throws {
        let events = try await SQLiteFlagEventStore(path: nil)
        // SQLiteNIO traps when a connection is released unclosed: closed on every way out.
        do {
            try await TestServer.with(eventStore: events) { server in
                try await server.booleanFlag("checkout")
                let path = "/admin/v1/environments/production/flags/checkout/insights"
                let hourly = try await server.request(.GET, path + "?granularity=hour", token: server.adminToken)
                #expect(hourly.status == 200, "\(hourly.body)")
                #expect(hourly.json?["granularity"] == "hour", "\(hourly.body)")
                let daily = try await server.request(.GET, path, token: server.adminToken)
                #expect(daily.status == 200, "\(daily.body)")
            }
        } catch {
            await events.close()
            throw error
        }
        await events.close()
    }
}
