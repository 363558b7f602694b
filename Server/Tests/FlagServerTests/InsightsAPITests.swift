import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `GET /admin/v1/environments/{environment}/flags/{key}/insights` over an event store that
/// answers hand-made rollups.
struct InsightsAPITests {
    static let hour = FlagInsightsTests.hour
    static let day = FlagInsightsTests.day
    /// 2026-11-20T00:00:00Z.
    static let start = FlagInsightsTests.start
    /// The servers' clock: 2026-11-25T10:30:00Z.
    static let now = InsightsRange.date(start + 5 * day + 10 * hour + 30 * 60_000)

    static func rollup(_ bucket: Int64, _ variant: String, _ evaluations: Int, exposures: Int = 0, app: String = "2.0", platform: String = "iOS")
        -> EvaluationRollup
    {
        FlagInsightsTests.rollup(bucket, variant, evaluations: evaluations, exposures: exposures, app: app, platform: platform)
    }

    static let store = FixedEventStore(
        hourly: [
            rollup(start + 2 * hour, "on", 12, exposures: 3),
            rollup(start + 2 * hour, "off", 4),
            rollup(start + 5 * hour, "on", 6, app: "1.9", platform: "macOS"),
            // Outside the ranges asked for below.
            rollup(start - hour, "on", 1000),
        ],
        daily: [
            rollup(start, "on", 18, exposures: 3),
            rollup(start + 3 * day, "off", 9, platform: "Android"),
        ],
        units: [
            UnitCount(day: start, flag: "checkout", variant: "on", units: 3),
            UnitCount(day: start + day, flag: "checkout", variant: "on", units: 2),
        ],
        lastEvaluated: ["checkout": start + 3 * day + 1234])

    /// A server holding the flag `checkout` (on in production) and `store` as its event store.
    static func withCheckout<T: Sendable>(_ store: (any FlagEventStore)? = Self.store, _ body: (TestServer) async throws -> T)
        async throws -> T
    {
        try await TestServer.withEvents(store, now: now) { server in
            try await server.booleanFlag("checkout")
            return try await body(server)
        }
    }

    static func path(_ query: String, environment: String = "production", flag: String = "checkout") -> String {
        "/admin/v1/environments/\(environment)/flags/\(flag)/insights" + (query.isEmpty ? "" : "?" + query)
    }

    @Test
    func anHourlyRangeAnswersEveryBucketUnitsSplitsAndTheChanges() async throws {
        let store = FixedEventStore(hourly: Self.store.hourly, units: Self.store.units, lastEvaluated: Self.store.lastEvaluatedTimes)
        try await Self.withCheckout(store) { server in
            // Times inside buckets are widened to whole hours: 00:00 to 06:00.
            let reply = try await server.request(
                .GET, Self.path("from=2026-11-20T00:10:00Z&to=2026-11-20T05:59:59.500Z"), token: server.adminToken)
            #expect(reply.status == 200, "\(reply.body)")
            let json = try #require(reply.json)
            #expect(json["granularity"] == "hour")
            #expect(json["from"] == "2026-11-20T00:00:00Z")
            #expect(json["to"] == "2026-11-20T06:00:00Z")
            #expect(json["buckets"]?.arrayValue?.count == 6)
            #expect(json["buckets"]?[2] == "2026-11-20T02:00:00Z")
            #expect(json["variants"]?[0]?["variant"] == "off")
            #expect(json["variants"]?[0]?["evaluations"] == [0, 0, 4, 0, 0, 0])
            #expect(json["variants"]?[1]?["variant"] == "on")
            #expect(json["variants"]?[1]?["evaluations"] == [0, 0, 12, 0, 0, 6])
            #expect(json["variants"]?[1]?["exposures"] == [0, 0, 3, 0, 0, 0])
            #expect(json["totalEvaluations"] == 22)
            #expect(json["units"]?["days"] == ["2026-11-20T00:00:00Z"])
            #expect(json["units"]?["variants"]?[1]?["daily"] == [3])
            #expect(json["appVersions"]?["values"]?[0]?["value"] == "2.0")
            #expect(json["appVersions"]?["values"]?[0]?["evaluations"] == 16)
            #expect(json["platforms"]?["values"]?[1]?["value"] == "macOS")
            #expect(json["lastEvaluated"] == "2026-11-23T00:00:01Z")
            // The flag was created and turned on "now", after this range.
            #expect(json["revisions"] == [])
            #expect(json["revisionsComplete"] == true)
            // The store was asked for exactly the widened range (and the whole days for units).
            #expect(store.queries == [
                .init(kind: "rollups", environment: "production", flag: "checkout", granularity: .hour, from: Self.start, to: Self.start + 6 * Self.hour),
                .init(kind: "units", environment: "production", flag: "checkout", granularity: nil, from: Self.start, to: Self.start + Self.day),
            ])
        }
    }

    @Test
    func byDefaultTheSevenDaysUpToNowPerDayWithTheFlagsChanges() async throws {
        try await Self.withCheckout { server in
            let reply = try await server.request(.GET, Self.path(""), token: server.adminToken)
            #expect(reply.status == 200, "\(reply.body)")
            let json = try #require(reply.json)
            #expect(json["granularity"] == "day")
            // 7 days before 25 Nov 10:30 is 18 Nov 10:30: the days 18 to 25 Nov.
            #expect(json["from"] == "2026-11-18T00:00:00Z")
            #expect(json["to"] == "2026-11-26T00:00:00Z")
            #expect(json["buckets"]?.arrayValue?.count == 8)
            #expect(json["variants"]?[1]?["evaluations"] == [0, 0, 18, 0, 0, 0, 0, 0])
            #expect(json["variants"]?[0]?["evaluations"] == [0, 0, 0, 0, 0, 9, 0, 0])
            #expect(json["units"]?["variants"]?[1]?["unitDays"] == 5)
            #expect(json["units"]?["variants"]?[1]?["peakDailyUnits"] == 3)
            // Created and turned on in production at the server's "now".
            let revisions = try #require(json["revisions"]?.arrayValue)
            #expect(revisions.count == 2)
            #expect(revisions.map { $0["time"] } == ["2026-11-25T10:30:00Z", "2026-11-25T10:30:00Z"])
            #expect(revisions[1]["summary"] == "turned checkout on in production: serves on")
            #expect(revisions[1]["actor"]?.stringValue?.hasPrefix("token first-admin") == true)
            #expect(revisions[1]["revert"] == false)
        }
    }

    @Test
    func aTimeWithAnOffsetCountsInUTC() async throws {
        try await Self.withCheckout { server in
            // 24 Nov 00:00 at +02:00 is 23 Nov 22:00 UTC; up to now (25 Nov 10:30) is under 3 days: hours.
            let reply = try await server.request(.GET, Self.path("from=2026-11-24T00:00:00%2B02:00"), token: server.adminToken)
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply.json?["from"] == "2026-11-23T22:00:00Z")
            #expect(reply.json?["to"] == "2026-11-25T11:00:00Z")
            #expect(reply.json?["granularity"] == "hour")
        }
    }

    @Test
    func aHourlyRangeLongerThanSevenDaysOrABackwardOneIs422() async throws {
        try await Self.withCheckout { server in
            let long = try await server.request(
                .GET, Self.path("from=2026-11-10T00:00:00Z&to=2026-11-18T00:00:00Z&granularity=hour"), token: server.adminToken)
            #expect(long.status == 422)
            #expect(long.json?["error"]?["code"] == "invalid")
            #expect(long.json?["error"]?["message"]?.stringValue?.contains("192 hours; at most 168") == true, "\(long.body)")
            let days = try await server.request(
                .GET, Self.path("from=2026-06-01T00:00:00Z&to=2026-11-18T00:00:00Z"), token: server.adminToken)
            #expect(days.status == 422)
            #expect(days.json?["error"]?["message"]?.stringValue?.contains("at most 90") == true, "\(days.body)")
            let backward = try await server.request(
                .GET, Self.path("from=2026-11-18T00:00:00Z&to=2026-11-17T00:00:00Z"), token: server.adminToken)
            #expect(backward.status == 422)
            #expect(backward.json?["error"]?["problems"]?[0]?["field"] == "from")
            // Ninety days of days is the limit, not past it.
            let ninety = try await server.request(
                .GET, Self.path("from=2026-08-27T00:00:00Z&to=2026-11-25T00:00:00Z"), token: server.adminToken)
            #expect(ninety.status == 200, "\(ninety.body)")
            #expect(ninety.json?["buckets"]?.arrayValue?.count == 90)
        }
    }

    @Test
    func aTimeThatIsNotISO8601OrAnUnknownGranularityIs400() async throws {
        try await Self.withCheckout { server in
            for query in ["from=yesterday", "to=1795132800000", "from=2026-11-20", "granularity=week", "to=2026-13-45T00:00:00Z"] {
                let reply = try await server.request(.GET, Self.path(query), token: server.adminToken)
                #expect(reply.status == 400, "\(query): \(reply.body)")
                #expect(reply.json?["error"]?["problems"]?[0]?["field"] == .string(String(query.prefix { $0 != "=" })), "\(query): \(reply.body)")
            }
        }
    }

    @Test
    func anUnknownEnvironmentOrFlagIs404() async throws {
        try await Self.withCheckout { server in
            let environment = try await server.request(.GET, Self.path("", environment: "moon"), token: server.adminToken)
            #expect(environment.status == 404)
            #expect(environment.json?["error"]?["message"] == "environment \"moon\" does not exist")
            let flag = try await server.request(.GET, Self.path("", flag: "ghost"), token: server.adminToken)
            #expect(flag.status == 404)
            #expect(flag.json?["error"]?["message"] == "flag \"ghost\" does not exist")
        }
    }

    @Test
    func aServerWithoutAnEventStoreAnswers409() async throws {
        try await Self.withCheckout(nil) { server in
            let reply = try await server.request(.GET, Self.path(""), token: server.adminToken)
            #expect(reply.status == 409)
            #expect(reply.json?["error"]?["code"] == "no_event_store")
            // A bad range is still a bad range.
            #expect(try await server.request(.GET, Self.path("granularity=week"), token: server.adminToken).status == 400)
        }
    }

    @Test
    func onlyAdminTokensOfTheEnvironmentRead() async throws {
        try await Self.withCheckout { server in
            #expect(try await server.request(.GET, Self.path("")).status == 401)
            let client = try await server.token(.client, environment: "production")
            #expect(try await server.request(.GET, Self.path(""), token: client).status == 403)
            let staging = try await server.token(.admin, environment: "staging", name: "staging-admin")
            #expect(try await server.request(.GET, Self.path(""), token: staging).status == 403)
            let production = try await server.token(.admin, environment: "production", name: "production-admin")
            #expect(try await server.request(.GET, Self.path(""), token: production).status == 200)
        }
    }

    @Test
    func everyAnswerMatchesTheServedDocument() async throws {
        let directory = TemporaryDirectory().path
        try await Self.withCheckout { server in
            var r = OpenAPIDocumentTests.Recorder()
            let template = "/admin/v1/environments/{environment}/flags/{key}/insights"
            let document = try await server.request(.GET, "/openapi.json")
            try document.body.write(toFile: directory + "/openapi.json", atomically: true, encoding: .utf8)
            for query in [
                "", "from=2026-11-20T00:00:00Z&to=2026-11-20T06:00:00Z", "granularity=hour&from=2026-11-24T00:00:00.5Z",
                "from=2026-11-10T00:00:00Z&granularity=hour", "from=2026-11-18T00:00:00Z&to=2026-11-17T00:00:00Z", "from=yesterday",
                "granularity=week",
            ] {
                _ = try await r.call(server, .GET, template, Self.path(query), token: server.adminToken)
            }
            _ = try await r.call(server, .GET, template, Self.path("", flag: "ghost"), token: server.adminToken)
            _ = try await r.call(server, .GET, template, Self.path(""), token: nil)
            try JSONValue.array(r.entries).serialized().write(toFile: directory + "/responses.json", atomically: true, encoding: .utf8)
        }
        try await Self.withCheckout(nil) { server in
            let reply = try await server.request(.GET, Self.path(""), token: server.adminToken)
            let recorded: JSONValue = [
                "path": "/admin/v1/environments/{environment}/flags/{key}/insights", "method": "get", "status": .int(reply.status),
                "body": reply.json ?? .null,
            ]
            let path = directory + "/responses.json"
            var entries = try JSONValue(parsing: String(contentsOfFile: path, encoding: .utf8)).arrayValue ?? []
            entries.append(recorded)
            try JSONValue.array(entries).serialized().write(toFile: path, atomically: true, encoding: .utf8)
        }
        let (status, text) = try OpenAPIDocumentTests.validate([directory + "/openapi.json", directory + "/responses.json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("checked 10 responses"), "\(text)")
        #expect(text.contains(" 0 problems"), "\(text)")
    }
}

extension JSONValue {
    /// The element at `index` of an array; nil for another value or an index out of range.
    fileprivate subscript(_ index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }
}
