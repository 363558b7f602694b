import FlagServerModel
import FlagStatistics
import Foundation
import HTTPTypes
import Hummingbird

/// Experiment metrics in the console (Server/Docs/Experiments.md): the list with the form that
/// creates one, each metric's edit form and its delete form. Metrics are shared by every
/// environment. Every write calls ``Experiments`` as `POST`, `PUT` and `DELETE /admin/v1/metrics…`
/// do (the same checks, the same refusals); every form is CSRF-checked by ``change(_:needs:_:)``
/// and needs an editor; the console user is the actor (`user <name>`).
extension ConsoleRoutes {
    static let metricNotices = [
        "created": "Metric created: experiments can name it now.", "updated": "Metric saved.", "deleted": "Metric deleted.",
        "archived": "Metric archived: the results that used it keep it; new experiments and guardrails cannot name it.",
        "restored": "Metric restored: experiments and guardrails can name it again.",
    ]
    /// The kinds a stored metric may have.
    static let storedMetricKinds: [MetricData.Kind] = [.conversion, .mean, .count, .ratio]

    func registerMetrics(on router: Router<BasicRequestContext>) {
        router.get("/console/metrics") { request, _ in
            try await page(request) { visitor in
                try await metricsPage(visitor, notice: Self.query(of: request)["done"].flatMap { Self.metricNotices[$0] })
            }
        }
        router.post("/console/metrics") { request, _ in
            try await change(request) { visitor, form in try await createMetric(visitor, form) }
        }
        router.get("/console/metrics/:key") { request, context in
            let key = try context.parameters.require("key")
            return try await page(request) { visitor in
                try await editMetricPage(visitor, key: key)
            }
        }
        router.post("/console/metrics/:key") { request, context in
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in try await updateMetric(visitor, form, key: key) }
        }
        router.post("/console/metrics/:key/delete") { request, context in
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, _ in try await deleteMetric(visitor, key: key) }
        }
        for (action, archived) in [("archive", true), ("restore", false)] {
            router.post("/console/metrics/:key/\(action)") { request, context in
                let key = try context.parameters.require("key")
                return try await change(request) { visitor, _ in try await archiveMetric(visitor, key: key, archived: archived) }
            }
        }
    }

    /// Archives or restores a metric as `POST /admin/v1/metrics/{key}/archive` and `…/restore` do;
    /// a refusal (409: an experiment uses it) shows the list with the problem.
    func archiveMetric(_ visitor: Visitor, key: String, archived: Bool) async throws -> Response {
        let experiments = try consoleExperiments()
        do { _ = try await experiments.archiveMetric(key: key, archived: archived, actor: "user \(visitor.user.name)") } catch {
            if case .notFound = error { throw APIError(error) }
            return try await metricsPage(visitor, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        return Self.redirect("/console/metrics?done=\(archived ? "archived" : "restored")")
    }

    func editMetricPage(_ visitor: Visitor, key: String) async throws -> Response {
        let experiments = try consoleExperiments()
        let metric: ExperimentMetric
        do { metric = try await experiments.metric(key: key) } catch { throw APIError(error) }
        return metricPage(visitor, key: key, form: Self.metricForm(metric), archived: metric.archived)
    }

    func deleteMetric(_ visitor: Visitor, key: String) async throws -> Response {
        let experiments = try consoleExperiments()
        do { try await experiments.deleteMetric(key: key) } catch {
            if case .notFound = error { throw APIError(error) }
            return try await metricsPage(visitor, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        return Self.redirect("/console/metrics?done=deleted")
    }

    static func metricLink(_ key: String) -> String { "/console/metrics/\(escaped(key))" }

    func metricsPage(
        _ visitor: Visitor, notice: String? = nil, form: ConsoleForm = ConsoleForm(fields: [:]), problems: [String] = [],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let experiments = try consoleExperiments()
        let metrics: [ExperimentMetric]
        do { metrics = try await experiments.metrics() } catch { throw APIError(error) }
        var context = layout(visitor, title: "Metrics", section: "experiments")
        context["notice"] = notice
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["empty"] = metrics.isEmpty
        context["experimentsLink"] = "/console/experiments"
        let rows = metrics.sorted { $0.key < $1.key }.map { metric -> (archived: Bool, row: [String: Any]) in
            (metric.archived, Self.metricRow(metric))
        }
        context["metrics"] = rows.filter { !$0.archived }.map(\.row)
        context["noActiveMetrics"] = !metrics.isEmpty && !rows.contains { !$0.archived }
        context["archivedMetrics"] = rows.filter(\.archived).map(\.row)
        context["hasArchived"] = rows.contains(where: \.archived)
        context["form"] = Self.metricFormContext(form)
        return renderer.page("metrics", context, status: status)
    }

    /// A metric as a row of the metrics tables.
    static func metricRow(_ metric: ExperimentMetric) -> [String: Any] {
        [
            "key": metric.key, "name": metric.name, "event": metric.event, "kind": Self.kindWords(metric),
            "window": Self.durationText(metric.windowHours * 3600), "better": metric.higherIsBetter ? "higher" : "lower",
            "guardrail": metric.guardrail ? "yes" : "no", "cuped": metric.cuped ? "yes" : "no", "cap": Self.capWords(metric.cap),
            "comparedBy": metric.percentile.map { "p\(ReportFormat.number($0 * 100))" } ?? (metric.kind == .ratio ? "ratio" : "mean"), "version": metric.version,
            "updated": "\(Self.shortTime(metric.updatedAt)) by \(metric.updatedBy)", "link": Self.metricLink(metric.key),
        ]
    }

    func metricPage(
        _ visitor: Visitor, key: String, form: ConsoleForm, archived: Bool = false, problems: [String] = [], status: HTTPResponse.Status = .ok
    ) -> Response {
        var context = layout(visitor, title: "Metric \(key)", section: "experiments")
        context["key"] = key
        context["archived"] = archived
        context["action"] = Self.metricLink(key)
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["form"] = Self.metricFormContext(form)
        return renderer.page("metric", context, status: status)
    }

    /// A stored metric as its edit form's fields.
    static func metricForm(_ metric: ExperimentMetric) -> ConsoleForm {
        var fields = [
            "key": metric.key, "name": metric.name, "event": metric.event, "kind": metric.kind.rawValue,
            "windowHours": String(metric.windowHours), "higherIsBetter": metric.higherIsBetter ? "true" : "false",
        ]
        if metric.guardrail { fields["guardrail"] = "on" }
        if metric.cuped { fields["cuped"] = "on" }
        if let value = metric.cap?.value { fields["capValue"] = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value) }
        if let percentile = metric.cap?.percentile { fields["capPercentile"] = String(percentile) }
        if let percentile = metric.percentile { fields["percentile"] = String(percentile) }
        if let ratio = metric.ratio {
            fields["numerator"] = ratio.numerator.rawValue
            fields["denominatorEvent"] = ratio.denominatorEvent
            fields["denominator"] = ratio.denominator.rawValue
        }
        return ConsoleForm(fields: fields)
    }

    /// A metric's kind in the metrics table; a ratio says what it divides ("ratio: sum / count of orders").
    static func kindWords(_ metric: ExperimentMetric) -> String {
        guard let ratio = metric.ratio else { return metric.kind.rawValue }
        return "ratio: \(ratio.numerator.rawValue) / \(ratio.denominator.rawValue) of \(ratio.denominatorEvent)"
    }

    /// A metric's cap in the metrics table: "at 100", "at p99" or "none".
    static func capWords(_ cap: MetricCap?) -> String {
        if let value = cap?.value { return "at \(ReportFormat.number(value))" }
        if let percentile = cap?.percentile { return "at p\(ReportFormat.number(percentile * 100))" }
        return "none"
    }

    /// The form's fields as typed (a form sent back with its problems keeps them).
    static func metricFormContext(_ form: ConsoleForm) -> [String: Any] {
        let kind = form["kind"] ?? MetricData.Kind.conversion.rawValue
        let higher = form["higherIsBetter"] != "false"
        return [
            "key": form["key"] ?? "", "name": form["name"] ?? "", "event": form["event"] ?? "",
            "windowHours": form["windowHours"] ?? String(24 * 7),
            "kinds": storedMetricKinds.map { ["value": $0.rawValue, "selected": $0.rawValue == kind] as [String: Any] },
            "higher": higher, "lower": !higher, "guardrail": form["guardrail"] != nil, "cuped": form["cuped"] != nil,
            "capValue": form["capValue"] ?? "", "capPercentile": form["capPercentile"] ?? "",
            "percentile": form["percentile"] ?? "", "denominatorEvent": form["denominatorEvent"] ?? "",
            "numerators": aggregateOptions(selected: form["numerator"] ?? MetricRatio.Aggregate.count.rawValue),
            "denominators": aggregateOptions(selected: form["denominator"] ?? MetricRatio.Aggregate.count.rawValue),
        ]
    }

    /// The choices of a ratio's side, `selected` chosen.
    private static func aggregateOptions(selected: String) -> [[String: Any]] {
        [(MetricRatio.Aggregate.count, "number of events"), (.sum, "sum of values")].map { aggregate, words in
            ["value": aggregate.rawValue, "words": words, "selected": aggregate.rawValue == selected]
        }
    }

    /// The metric a form describes under `key`, or the problems of its fields that do not parse
    /// (the metric's own checks run in ``Experiments``, as for the admin API).
    static func metric(from form: ConsoleForm, key: String) -> Result<ExperimentMetric, ConsoleFormProblems> {
        var problems: [String] = []
        let kindText = form["kind"] ?? ""
        let kind = MetricData.Kind(rawValue: kindText)
        if kind == nil {
            problems.append("kind: choose \(storedMetricKinds.map(\.rawValue).joined(separator: ", ")), got \"\(kindText.prefix(64))\"")
        }
        let windowText = (form["windowHours"] ?? "").trimmingCharacters(in: .whitespaces)
        let window = windowText.isEmpty ? 24 * 7 : Int(windowText)
        if window == nil { problems.append("windowHours: expected a whole number of hours, got \"\(windowText.prefix(64))\"") }
        // The cap and the percentile: empty fields are none; a number in each (the metric's checks refuse what conflicts).
        var numbers: [String: Double] = [:]
        for (field, name) in [("capValue", "cap.value"), ("capPercentile", "cap.percentile"), ("percentile", "percentile")] {
            let text = (form[field] ?? "").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            if let number = Double(text), number.isFinite { numbers[field] = number } else {
                problems.append("\(name): expected a number, got \"\(text.prefix(64))\"")
            }
        }
        let percentile = numbers.removeValue(forKey: "percentile")
        let cap = numbers.isEmpty ? nil : MetricCap(value: numbers["capValue"], percentile: numbers["capPercentile"])
        // A ratio's parts are read for a ratio metric only (the fields stay in the form for the others).
        var ratio: MetricRatio?
        if kind == .ratio {
            var sides: [MetricRatio.Aggregate] = []
            for field in ["numerator", "denominator"] {
                let text = form[field] ?? ""
                if let side = MetricRatio.Aggregate(rawValue: text) { sides.append(side) } else {
                    problems.append("ratio.\(field): choose count or sum, got \"\(text.prefix(64))\"")
                }
            }
            if sides.count == 2 {
                ratio = MetricRatio(
                    numerator: sides[0], denominatorEvent: (form["denominatorEvent"] ?? "").trimmingCharacters(in: .whitespaces),
                    denominator: sides[1])
            }
        }
        guard let kind, let window, problems.isEmpty else { return .failure(ConsoleFormProblems(problems: problems)) }
        return .success(ExperimentMetric(
            key: key, name: (form["name"] ?? "").trimmingCharacters(in: .whitespaces),
            event: (form["event"] ?? "").trimmingCharacters(in: .whitespaces), kind: kind, windowHours: window,
            higherIsBetter: form["higherIsBetter"] != "false", guardrail: form["guardrail"] != nil, cuped: form["cuped"] != nil, cap: cap,
            percentile: percentile, ratio: ratio))
    }

    func createMetric(_ visitor: Visitor, _ form: ConsoleForm) async throws -> Response {
        let experiments = try consoleExperiments()
        let key = (form["key"] ?? "").trimmingCharacters(in: .whitespaces)
        switch Self.metric(from: form, key: key) {
        case .failure(let refused):
            return try await metricsPage(visitor, form: form, problems: refused.problems, status: .badRequest)
        case .success(let metric):
            do { _ = try await experiments.createMetric(metric, actor: "user \(visitor.user.name)") } catch {
                return try await metricsPage(visitor, form: form, problems: Self.problemTexts(error), status: APIError(error).status)
            }
        }
        return Self.redirect("/console/metrics?done=created")
    }

    func updateMetric(_ visitor: Visitor, _ form: ConsoleForm, key: String) async throws -> Response {
        let experiments = try consoleExperiments()
        var typed = form
        typed.fields["key"] = key
        switch Self.metric(from: form, key: key) {
        case .failure(let refused):
            return metricPage(visitor, key: key, form: typed, problems: refused.problems, status: .badRequest)
        case .success(let metric):
            do { _ = try await experiments.updateMetric(metric, actor: "user \(visitor.user.name)") } catch {
                if case .notFound = error { throw APIError(error) }
                return metricPage(visitor, key: key, form: typed, problems: Self.problemTexts(error), status: APIError(error).status)
            }
        }
        return Self.redirect("/console/metrics?done=updated")
    }
}

/// The fields of a console form that do not parse, each naming its field.
struct ConsoleFormProblems: Error {
    var problems: [String]
}
