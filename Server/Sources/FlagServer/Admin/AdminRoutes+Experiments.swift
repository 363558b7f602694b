import FlagEvaluation
import FlagServerModel
import FlagStatistics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The name of a request body's schema, for bodies that differ only in it.
protocol ExperimentSchemaName: Sendable { static var name: String { get } }

/// The bodies of the experiment routes (`Server/Docs/Experiments.md`).
enum ExperimentRequests {
    /// POST bodies (the key or id required in the schema).
    enum Create: ExperimentSchemaName { static var name: String { "Create" } }
    /// PUT bodies (no key or id: the path names it; the schema refuses one).
    enum Replace: ExperimentSchemaName { static var name: String { "" } }

    /// `POST /admin/v1/metrics` (with `key`) and `PUT /admin/v1/metrics/{key}` (without).
    struct Metric<Name: ExperimentSchemaName>: DocumentedRequestBody {
        static var schemaName: String { "ExperimentMetric\(Name.name)Body" }
        var key: String?
        var name: String
        var event: String
        var kind: MetricData.Kind
        var windowHours: Int?
        var higherIsBetter: Bool?
        var guardrail: Bool?
        var cuped: Bool?
        var cap: MetricCap?
        var percentile: Double?
        var ratio: MetricRatio?

        func metric(key: String) -> ExperimentMetric {
            ExperimentMetric(
                key: key, name: name, event: event, kind: kind, windowHours: windowHours ?? 24 * 7, higherIsBetter: higherIsBetter ?? true,
                guardrail: guardrail ?? false, cuped: cuped ?? false, cap: cap, percentile: percentile, ratio: ratio)
        }
    }

    /// `POST …/experiments` (with `id`) and `PUT …/experiments/{id}` (without).
    struct Definition<Name: ExperimentSchemaName>: DocumentedRequestBody {
        static var schemaName: String { "Experiment\(Name.name)Body" }
        var id: String?
        var flag: String
        var control: String
        var arms: [String]
        var hypothesis: String?
        var metrics: [String]
        var alpha: Double?
        /// `bh` (the default) or `holm`; `dunnett` is refused (422): it holds for a fixed-horizon
        /// test, not for the sequential test experiments are decided by.
        var correction: MultipleComparisonCorrection?
        /// RFC 3339.
        var plannedEnd: String?

        func plannedEndDate() throws(AdminError) -> Date? {
            guard let plannedEnd else { return nil }
            guard let date = try? Date(plannedEnd, strategy: .iso8601) else {
                throw .badRequest("plannedEnd: expected an RFC 3339 time, got \"\(plannedEnd)\"")
            }
            return date
        }

        func apply(to experiment: inout Experiment, plannedEnd: Date?) {
            experiment.flag = flag
            experiment.control = control
            experiment.arms = arms
            experiment.hypothesis = hypothesis ?? ""
            experiment.metrics = metrics
            experiment.alpha = alpha ?? 0.05
            experiment.correction = correction
            experiment.plannedEnd = plannedEnd
        }
    }

    /// `POST …/experiments/{id}/start` and `…/stop`.
    struct Action: DocumentedRequestBody {
        static var schemaName: String { "ExperimentAction" }
        var reason: String?
    }

    /// `POST …/experiments/{id}/ship`.
    struct Ship: DocumentedRequestBody {
        static var schemaName: String { "ExperimentShip" }
        var arm: String
        var reason: String?
    }

    /// `POST …/flags/{key}/experiment-plan`.
    struct Plan: DocumentedRequestBody {
        static var schemaName: String { "ExperimentPlanRequest" }
        /// A conversion metric's baseline rate (0 < p < 1); or give `baselineMean` and `standardDeviation`.
        var baselineRate: Double?
        var baselineMean: Double?
        var standardDeviation: Double?
        /// The effect to size for; or give `unitsPerArm` for the effect that size detects.
        var minimumDetectableEffect: Double?
        /// Whether the effect is relative to the baseline (0.05 = 5 %).
        var relative: Bool?
        var alpha: Double?
        var power: Double?
        var arms: Int?
        /// Metrics decided on (1 when absent).
        var metrics: Int?
        /// The test sized: the sequential test the server decides with when absent.
        var test: SampleSizePlan.Test?
        /// The sequential test's mixing standard deviation as a share of the metric's.
        var mixingWidth: Double?
        /// Units per arm: plan the minimum detectable effect at this size.
        var unitsPerArm: Double?
    }
}

/// `POST …/experiment-plan`'s answer.
struct ExperimentPlanResponse: Encodable {
    var unitsPerArm: Double
    var totalUnits: Double
    /// The absolute effect planned for (on the metric's scale); with `unitsPerArm` in the request,
    /// the minimum detectable effect.
    var effect: Double
    /// Units per day of the flag in the environment, averaged over the last 7 full days; absent
    /// without an event store or without traffic.
    var unitsPerDay: Double?
    var days: Double?
    var test: SampleSizePlan.Test
    /// (arms − 1) × metrics.
    var comparisons: Int
    var alphaPerComparison: Double
    var mixingWidth: Double?
    var achievedPower: Double?
    /// Set when the request gave `unitsPerArm`.
    var minimumDetectableEffect: Double?
}

/// `POST …/experiments/{id}/ship`'s answer.
struct ExperimentShipResponse: Encodable {
    var experiment: Experiment
    var revisions: [String: Int]
}

extension AdminRoutes {
    /// Metrics, experiments, their lifecycle and results, and the planner (`Server/Docs/Experiments.md`).
    func registerExperimentRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/metrics") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let experiments = try experiments()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await experiments.metrics() })
        }
        group.post("/metrics") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let body = try await JSONBody.decode(ExperimentRequests.Metric<ExperimentRequests.Create>.self, from: request, limit: limits.maximumAdminBytes)
            guard let key = body.key else { throw APIError(.badRequest, code: "bad_request", message: "key: required") }
            let experiments = try experiments()
            let metric = try await Self.run { () async throws(AdminError) in
                try await experiments.createMetric(body.metric(key: key), actor: Self.actor(token))
            }
            return JSONBody.response(metric, status: .created)
        }
        group.get("/metrics/:key") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let key = try context.parameters.require("key")
            let experiments = try experiments()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await experiments.metric(key: key) })
        }
        group.put("/metrics/:key") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let key = try context.parameters.require("key")
            let body = try await JSONBody.decode(ExperimentRequests.Metric<ExperimentRequests.Replace>.self, from: request, limit: limits.maximumAdminBytes)
            if let named = body.key, named != key {
                throw APIError(.badRequest, code: "bad_request", message: "key: \"\(named)\" differs from the path's \"\(key)\"")
            }
            let experiments = try experiments()
            let metric = try await Self.run { () async throws(AdminError) in
                try await experiments.updateMetric(body.metric(key: key), actor: Self.actor(token))
            }
            return JSONBody.response(metric)
        }
        for (action, archived) in [("archive", true), ("restore", false)] {
            group.post("/metrics/:key/\(action)") { request, context in
                let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
                let key = try context.parameters.require("key")
                let experiments = try experiments()
                return JSONBody.response(try await Self.run { () async throws(AdminError) in
                    try await experiments.archiveMetric(key: key, archived: archived, actor: Self.actor(token))
                })
            }
        }
        group.delete("/metrics/:key") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let key = try context.parameters.require("key")
            let experiments = try experiments()
            try await Self.run { () async throws(AdminError) in try await experiments.deleteMetric(key: key) }
            return Response(status: .noContent)
        }

        group.get("/environments/:environment/experiments") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let experiments = try experiments()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await experiments.experiments(environment: environment) })
        }
        group.post("/environments/:environment/experiments") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ExperimentRequests.Definition<ExperimentRequests.Create>.self, from: request, limit: limits.maximumAdminBytes)
            guard let id = body.id else { throw APIError(.badRequest, code: "bad_request", message: "id: required") }
            let experiments = try experiments()
            let created = try await Self.run { () async throws(AdminError) in
                var experiment = Experiment(
                    id: id, environment: environment, flag: body.flag, control: body.control, arms: body.arms, metrics: body.metrics,
                    createdAt: now(), createdBy: Self.actor(token))
                body.apply(to: &experiment, plannedEnd: try body.plannedEndDate())
                return try await experiments.create(experiment)
            }
            return JSONBody.response(created, status: .created)
        }
        group.get("/environments/:environment/experiments/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let experiments = try experiments()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await experiments.experiment(id: id, environment: environment) })
        }
        group.put("/environments/:environment/experiments/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ExperimentRequests.Definition<ExperimentRequests.Replace>.self, from: request, limit: limits.maximumAdminBytes)
            if let named = body.id, named != id {
                throw APIError(.badRequest, code: "bad_request", message: "id: \"\(named)\" differs from the path's \"\(id)\"")
            }
            let experiments = try experiments()
            let updated = try await Self.run { () async throws(AdminError) in
                let plannedEnd = try body.plannedEndDate()
                return try await experiments.update(id: id, environment: environment, actor: Self.actor(token)) { experiment in
                    body.apply(to: &experiment, plannedEnd: plannedEnd)
                }
            }
            return JSONBody.response(updated)
        }
        group.delete("/environments/:environment/experiments/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let experiments = try experiments()
            try await Self.run { () async throws(AdminError) in try await experiments.delete(id: id, environment: environment) }
            // Its incremental results go too (best effort: they are recounted from raw events if asked again).
            if let results = eventStore?.capabilities.experimentResults { try? await results.deleteResults(experiment: id) }
            await experimentResults?.forget(experiment: id)
            return Response(status: .noContent)
        }
        group.post("/environments/:environment/experiments/:id/start") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            _ = try await JSONBody.decode(ExperimentRequests.Action.self, from: request, limit: limits.maximumAdminBytes)
            let experiments = try experiments()
            return JSONBody.response(
                try await Self.run { () async throws(AdminError) in
                    try await experiments.start(id: id, environment: environment, actor: Self.actor(token))
                })
        }
        group.post("/environments/:environment/experiments/:id/stop") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ExperimentRequests.Action.self, from: request, limit: limits.maximumAdminBytes)
            let experiments = try experiments()
            return JSONBody.response(
                try await Self.run { () async throws(AdminError) in
                    try await experiments.stop(id: id, environment: environment, actor: Self.actor(token), note: body.reason)
                })
        }
        group.post("/environments/:environment/experiments/:id/ship") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ExperimentRequests.Ship.self, from: request, limit: limits.maximumAdminBytes)
            let experiments = try experiments()
            let (shipped, revisions) = try await Self.run { () async throws(AdminError) in
                try await experiments.ship(id: id, environment: environment, arm: body.arm, actor: Self.actor(token), reason: body.reason)
            }
            return JSONBody.response(ExperimentShipResponse(experiment: shipped, revisions: revisions))
        }
        group.get("/environments/:environment/experiments/:id/results") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let format = request.uri.queryParameters["format"].map(String.init) ?? "json"
            guard format == "json" || format == "csv" else {
                throw APIError(.badRequest, code: "bad_request", message: "format: \"json\" or \"csv\", got \"\(format)\"")
            }
            let refresh = try Self.refreshParameter(request)
            let segments = try Self.segmentParameters(request)
            let report = try await experimentReport(id: id, environment: environment, refresh: refresh, segments: segments)
            if format == "csv" {
                return Response(
                    status: .ok, headers: [.contentType: "text/csv; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: report.segmentCSV() ?? report.csv())))
            }
            guard let data = try? report.json() else { throw APIError(.internalServerError, code: "internal", message: "the report does not encode") }
            return JSONBody.response(data: data)
        }
        group.post("/environments/:environment/flags/:key/experiment-plan") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ExperimentRequests.Plan.self, from: request, limit: limits.maximumAdminBytes)
            let state = await admin.state
            guard state.environments[environment] != nil else { throw Self.missing("environment \"\(environment)\"") }
            guard state.environments[environment]?.settings[key] != nil else { throw Self.missing("flag \"\(key)\"") }
            let unitsPerDay = await unitsPerDay(flag: key, environment: environment)
            return JSONBody.response(try Self.plan(body, unitsPerDay: unitsPerDay))
        }
    }

    /// The experiments of the server's store.
    func experiments() throws -> Experiments {
        guard let store = admin.store.capabilities.experiments else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no experiments")
        }
        return Experiments(admin: admin, store: store, now: now)
    }

    /// The report of experiment `id` from the event store's results (503 without results support);
    /// counted now when `refresh`, else from the totals counted in the background.
    func experimentReport(
        id: String, environment: String, refresh: Bool, segments: ExperimentSegmentRequest? = nil
    ) async throws -> ExperimentReport {
        let experiments = try experiments()
        guard let experimentResults else { throw ExperimentResultsCache.unsupported }
        let maximumAge = refresh ? .zero : experimentResultsMaximumAge
        return try await Self.run { () async throws(AdminError) in
            try await experiments.report(
                id: id, environment: environment, results: experimentResults, maximumAge: maximumAge, segments: segments,
                eventStore: eventStore)
        }
    }

    /// The `refresh` query parameter of a results request: `true` counts now.
    static func refreshParameter(_ request: Request) throws -> Bool {
        switch request.uri.queryParameters["refresh"].map(String.init) {
        case nil, "false": return false
        case "true": return true
        case let other?: throw APIError(.badRequest, code: "bad_request", message: "refresh: \"true\" or \"false\", got \"\(other)\"")
        }
    }

    /// The flag's units per day in `environment` over the last 7 full UTC days, from the event
    /// store; `nil` without one, or without traffic.
    func unitsPerDay(flag: String, environment: String) async -> Double? {
        guard let eventStore else { return nil }
        let day: Int64 = 86_400_000
        let today = Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) / day * day
        guard let counts = try? await eventStore.unitCounts(environment: environment, flag: flag, from: today - 7 * day, to: today),
            !counts.isEmpty
        else { return nil }
        let total = counts.map(\.units).reduce(0, +)
        guard total > 0 else { return nil }
        return Double(total) / 7
    }

    /// The planner: FlagStatistics' ``SampleSizePlan`` on the body's baseline and effect.
    static func plan(_ body: ExperimentRequests.Plan, unitsPerDay: Double?) throws(APIError) -> ExperimentPlanResponse {
        func invalid(_ field: String, _ problem: String) -> APIError {
            APIError(
                .unprocessableContent, code: "invalid", message: "\(field): \(problem)",
                problems: [ValidationError(key: nil, field: field, problem: problem)])
        }
        let metric: SampleSizePlan.Metric
        let baseline: Double?
        switch (body.baselineRate, body.baselineMean, body.standardDeviation) {
        case (let rate?, nil, nil):
            metric = .conversion(baseline: rate)
            baseline = rate
        case (nil, let mean, let deviation?):
            metric = .mean(standardDeviation: deviation)
            baseline = mean
        default:
            throw invalid("baselineRate", "give a conversion rate alone, or standardDeviation (with baselineMean for a relative effect)")
        }
        let alpha = body.alpha ?? 0.05
        let power = body.power ?? 0.8
        let arms = body.arms ?? 2
        let metrics = body.metrics ?? 1
        let test = body.test ?? .sequential
        do throws(StatisticsError) {
            if let unitsPerArm = body.unitsPerArm {
                guard body.minimumDetectableEffect == nil else {
                    throw StatisticsError("unitsPerArm", "give minimumDetectableEffect (the units it needs) or unitsPerArm (the effect they detect), not both")
                }
                let effect = try SampleSizePlan.minimumDetectableEffect(
                    metric: metric, unitsPerArm: unitsPerArm, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test,
                    mixingWidth: body.mixingWidth)
                let total = unitsPerArm * Double(arms)
                return ExperimentPlanResponse(
                    unitsPerArm: unitsPerArm, totalUnits: total, effect: effect, unitsPerDay: unitsPerDay,
                    days: unitsPerDay.map { (total / $0).rounded(.up) }, test: test, comparisons: (arms - 1) * metrics,
                    alphaPerComparison: alpha / Double((arms - 1) * metrics),
                    mixingWidth: test == .sequential ? (body.mixingWidth ?? StatisticsEngine.defaultMixingWidth) : nil,
                    achievedPower: power, minimumDetectableEffect: effect)
            }
            guard var effect = body.minimumDetectableEffect else {
                throw StatisticsError("minimumDetectableEffect", "give the effect to size for, or unitsPerArm for the effect a size detects")
            }
            if body.relative == true {
                guard let baseline else { throw StatisticsError("baselineMean", "needed for a relative effect") }
                effect *= baseline
            }
            let plan = try SampleSizePlan(
                metric: metric, effect: effect, alpha: alpha, power: power, arms: arms, metrics: metrics, test: test,
                mixingWidth: body.mixingWidth, unitsPerDay: unitsPerDay)
            return ExperimentPlanResponse(
                unitsPerArm: plan.unitsPerArm, totalUnits: plan.totalUnits, effect: effect, unitsPerDay: unitsPerDay, days: plan.days,
                test: plan.test, comparisons: plan.comparisons, alphaPerComparison: plan.alphaPerComparison, mixingWidth: plan.mixingWidth,
                achievedPower: plan.achievedPower, minimumDetectableEffect: nil)
        } catch {
            throw invalid(error.path, error.problem)
        }
    }
}
