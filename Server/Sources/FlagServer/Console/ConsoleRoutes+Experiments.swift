import FlagEvaluation
import FlagServerModel
import FlagStatistics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Experiments of an environment in the console (Server/Docs/Experiments.md): the list with start,
/// stop and ship forms, the form that creates a draft, and each experiment's results page
/// (``experimentReportPage(_:visitor:exportBase:)``) with its JSON and CSV exports. Every form is
/// CSRF-checked by ``change(_:needs:_:)``; the console user is the actor (`user <name>`).
extension ConsoleRoutes {
    static let experimentNotices = [
        "created": "Draft created.", "started": "Started: its allocation is recorded.", "stopped": "Stopped.",
        "shipped": "Shipped: the arm is the flag's default.",
    ]

    func registerExperiments(on router: Router<BasicRequestContext>) {
        // The navigation's entry: the experiments of the first environment in the listing order.
        router.get("/console/experiments") { request, _ in
            try await page(request) { _ in
                guard let first = await admin.state.orderedEnvironmentKeys.first else { return Self.redirect("/console/environments") }
                return Self.redirect("/console/environments/\(Self.escaped(first))/experiments")
            }
        }
        router.get("/console/environments/:environment/experiments") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in
                try await experimentsPage(visitor, environment: environment, notice: Self.query(of: request)["done"].flatMap { Self.experimentNotices[$0] })
            }
        }
        router.post("/console/environments/:environment/experiments") { request, context in
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in try await createExperiment(visitor, form, environment: environment) }
        }
        for action in ["start", "stop", "ship"] {
            router.post("/console/environments/:environment/experiments/:id/\(action)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                return try await change(request) { visitor, form in
                    try await experimentAction(visitor, form, action: action, environment: environment, id: id)
                }
            }
        }
        router.get("/console/environments/:environment/experiments/:id/results") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            return try await page(request) { visitor in
                let base = "/console/environments/\(Self.escaped(environment))/experiments/\(Self.escaped(id))/export"
                let report = try await consoleExperimentReport(
                    id: id, environment: environment, refresh: try AdminRoutes.refreshParameter(request),
                    segments: try AdminRoutes.segmentParameters(request))
                return experimentReportPage(report, visitor: visitor, exportBase: base)
            }
        }
        for format in ["json", "csv"] {
            router.get("/console/environments/:environment/experiments/:id/export.\(format)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                return try await page(request) { _ in
                    let report = try await consoleExperimentReport(
                        id: id, environment: environment, refresh: false, segments: try AdminRoutes.segmentParameters(request))
                    if format == "csv" {
                        return Response(
                            status: .ok, headers: [.contentType: "text/csv; charset=utf-8"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: report.segmentCSV() ?? report.csv())))
                    }
                    guard let data = try? report.json() else { throw APIError(.internalServerError, code: "internal", message: "the report does not encode") }
                    return JSONBody.response(data: data)
                }
            }
        }
    }

    func consoleExperiments() throws -> Experiments {
        guard let store = admin.store.capabilities.experiments else { throw Self.notFound("experiments (this store keeps none)") }
        return Experiments(admin: admin, store: store, now: now)
    }

    /// The report of an experiment, from the event store's results (503 without results support).
    func consoleExperimentReport(
        id: String, environment: String, refresh: Bool, segments: ExperimentSegmentRequest? = nil
    ) async throws -> ExperimentReport {
        let experiments = try consoleExperiments()
        guard let experimentResults else { throw ExperimentResultsCache.unsupported }
        do {
            return try await experiments.report(
                id: id, environment: environment, results: experimentResults,
                maximumAge: refresh ? .zero : experimentResultsMaximumAge, segments: segments, eventStore: eventStore)
        } catch {
            throw APIError(error)
        }
    }

    func experimentsPage(
        _ visitor: Visitor, environment: String, notice: String? = nil, problems: [String] = [], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let experiments = try consoleExperiments()
        let list: [Experiment]
        do { list = try await experiments.experiments(environment: environment) } catch { throw APIError(error) }
        let listBase = "/console/environments/\(Self.escaped(environment))/experiments"
        let hasResults = experimentResults != nil
        var context = layout(visitor, title: "Experiments in \(environment)", section: "experiments")
        context["environment"] = environment
        context["environmentLinks"] = await admin.state.orderedEnvironmentKeys.map { key -> [String: Any] in
            ["key": key, "href": "/console/environments/\(Self.escaped(key))/experiments", "current": key == environment]
        }
        let metrics: [ExperimentMetric]
        do { metrics = try await experiments.metrics() } catch { throw APIError(error) }
        // Archived metrics are refused to new experiments: not offered.
        let offered = metrics.filter { !$0.archived }
        context["metricKeys"] = offered.map(\.key).joined(separator: ", ")
        context["noMetrics"] = offered.isEmpty
        context["notice"] = notice
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["listBase"] = listBase
        context["empty"] = list.isEmpty
        context["experiments"] = list.map { experiment -> [String: Any] in
            [
                "id": experiment.id, "flag": experiment.flag, "control": experiment.control,
                "arms": experiment.arms.joined(separator: ", "), "armList": experiment.arms, "status": experiment.status.rawValue,
                "correction": (experiment.correction ?? .bh).name,
                "started": experiment.startedAt.map(Self.shortTime) ?? "—", "base": listBase + "/" + Self.escaped(experiment.id),
                "draft": experiment.status == .draft, "running": experiment.status == .running,
                "shippable": experiment.status == .running || experiment.status == .stopped,
                "hasResults": hasResults && experiment.status != .draft,
            ]
        }
        return renderer.page("experiments", context, status: status)
    }

    func createExperiment(_ visitor: Visitor, _ form: ConsoleForm, environment: String) async throws -> Response {
        let experiments = try consoleExperiments()
        func list(_ name: String) -> [String] {
            (form[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let alphaText = (form["alpha"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let alpha = alphaText.isEmpty ? 0.05 : Double(alphaText), alpha.isFinite else {
            return try await experimentsPage(visitor, environment: environment, problems: ["α: expected a number, got \"\(alphaText)\""], status: .badRequest)
        }
        let correctionText = (form["correction"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let correction = correctionText.isEmpty ? .bh : MultipleComparisonCorrection(rawValue: correctionText) else {
            return try await experimentsPage(
                visitor, environment: environment,
                problems: ["Multiple-comparison correction: expected bh or holm, got \"\(correctionText)\""], status: .badRequest)
        }
        var experiment = Experiment(
            id: form["id"] ?? "", environment: environment, flag: form["flag"] ?? "", control: form["control"] ?? "", arms: list("arms"),
            metrics: list("metrics"), createdAt: now(), createdBy: "user \(visitor.user.name)")
        experiment.hypothesis = form["hypothesis"] ?? ""
        experiment.alpha = alpha
        experiment.correction = correction == .bh ? nil : correction
        do {
            _ = try await experiments.create(experiment)
        } catch {
            return try await experimentsPage(
                visitor, environment: environment, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        return Self.redirect("/console/environments/\(Self.escaped(environment))/experiments?done=created")
    }

    func experimentAction(_ visitor: Visitor, _ form: ConsoleForm, action: String, environment: String, id: String) async throws -> Response {
        let experiments = try consoleExperiments()
        let actor = "user \(visitor.user.name)"
        do {
            switch action {
            case "start": _ = try await experiments.start(id: id, environment: environment, actor: actor)
            case "stop": _ = try await experiments.stop(id: id, environment: environment, actor: actor, note: nil)
            default:
                _ = try await experiments.ship(id: id, environment: environment, arm: form["arm"] ?? "", actor: actor, reason: nil)
            }
        } catch {
            return try await experimentsPage(
                visitor, environment: environment, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        let done = ["start": "started", "stop": "stopped", "ship": "shipped"][action] ?? ""
        return Self.redirect("/console/environments/\(Self.escaped(environment))/experiments?done=\(done)")
    }
}
