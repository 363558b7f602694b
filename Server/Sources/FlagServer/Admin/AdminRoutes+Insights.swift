import FlagServerModel
import Foundation
import Hummingbird

extension AdminRoutes {
    /// `GET /admin/v1/environments/{environment}/flags/{key}/insights?from=&to=&granularity=`:
    /// the flag's ``FlagInsights`` over a range given in ISO 8601 (`2026-11-20T00:00:00Z`; `to`
    /// defaults to now, `from` to 7 days before `to`), per `hour` or `day` (by default hours for
    /// at most 3 days, days beyond), widened to whole buckets, at most 7 days of hours or 90 days
    /// of days.
    ///
    /// Answers 400 for a time that is not ISO 8601, 422 for a range that is empty or too long,
    /// 404 for an unknown environment or flag, and 409 (`no_event_store`) when the server keeps
    /// no events.
    func registerInsightsRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/flags/:key/insights") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let state = await admin.state
            guard let env = state.environments[environment] else { throw Self.missing("environment \"\(environment)\"") }
            guard let flag = state.flags[key], env.settings[key] != nil else { throw Self.missing("flag \"\(key)\"") }
            let query = request.uri.queryParameters
            let range = try Self.insightsRange(
                from: query["from"].map(String.init), to: query["to"].map(String.init),
                granularity: query["granularity"].map(String.init), now: now())
            guard let eventStore else { throw Self.noEventStore }
            let insights: FlagInsights
            do throws(StoreError) {
                insights = try await FlagInsights.read(
                    flag: flag, environment: environment, range: range, events: eventStore, store: admin.store, flags: state.flags)
            } catch {
                throw APIError(AdminError(store: error))
            }
            return JSONBody.response(insights)
        }
    }

    /// The answer when the server keeps no events.
    static let noEventStore = APIError(
        .conflict, code: "no_event_store",
        message: "this server keeps no events (it was started without an event store), so it has no insights")

    /// The range the query parameters ask for.
    ///
    /// - Throws: ``APIError``: 400 for a time that is not ISO 8601 or an unknown granularity, 422
    ///   for a range ``InsightsRange`` refuses.
    static func insightsRange(from: String?, to: String?, granularity: String?, now: Date) throws(APIError) -> InsightsRange {
        func time(_ name: String, _ text: String?) throws(APIError) -> Int64? {
            guard let text else { return nil }
            guard let time = InsightsRange.time(parsing: text) else {
                throw APIError(
                    .badRequest, code: "bad_request",
                    message: "\(name): expected an ISO 8601 date and time with a zone (such as 2026-11-20T08:00:00Z), got \"\(text.prefix(64))\"",
                    problems: [ValidationError(key: nil, field: name, problem: "not an ISO 8601 date and time")])
            }
            return time
        }
        var size: RollupGranularity?
        if let granularity {
            guard let value = RollupGranularity(rawValue: granularity) else {
                throw APIError(
                    .badRequest, code: "bad_request", message: "granularity: expected hour or day, got \"\(granularity.prefix(64))\"",
                    problems: [ValidationError(key: nil, field: "granularity", problem: "expected hour or day")])
            }
            size = value
        }
        let start = try time("from", from)
        let end = try time("to", to)
        do {
            return try InsightsRange(from: start, to: end, granularity: size, now: InsightsRange.milliseconds(now))
        } catch {
            let field = if case .empty = error { "from" } else { "granularity" }
            throw APIError(
                .unprocessableContent, code: "invalid", message: error.description,
                problems: [ValidationError(key: nil, field: field, problem: error.description)])
        }
    }
}
