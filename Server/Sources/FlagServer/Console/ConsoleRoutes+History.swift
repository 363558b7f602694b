import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The audit log with filters, readable diffs and "revert to this".
extension ConsoleRoutes {
    /// Most audit entries the history page reads (several make one change when a write touched
    /// several environments).
    static let historyLimit = 200

    func registerHistory(on router: Router<BasicRequestContext>) {
        router.get("/console/history") { request, _ in
            try await page(request) { visitor in try await historyPage(Self.query(of: request), visitor) }
        }
        router.post("/console/history/revert") { request, _ in
            try await change(request) { visitor, form in try await revert(request, visitor, form) }
        }
    }

    func historyPage(
        _ query: ConsoleForm, _ visitor: Visitor, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let state = await admin.state
        func parameter(_ name: String) -> String {
            (query[name] ?? "").trimmingCharacters(in: .whitespaces)
        }
        let flag = parameter("flag")
        let actor = parameter("actor")
        let environment = parameter("environment")
        let environments = state.orderedEnvironmentKeys
        var entries: [AuditEntry] = []
        for key in environments where environment.isEmpty || key == environment {
            do {
                entries += try await admin.store.audit(environment: key, key: flag.isEmpty ? nil : flag, limit: Self.historyLimit)
            } catch {
                throw APIError(AdminError(store: error))
            }
        }
        entries = entries
            .filter { actor.isEmpty || $0.actor.localizedCaseInsensitiveContains(actor) }
            .sorted { ($0.time, $0.revision, $0.environment) > ($1.time, $1.revision, $1.environment) }
        let formatter = ISO8601DateFormatter()
        let filters = [("flag", flag), ("actor", actor), ("environment", environment)]
        let changelog = Changelog(
            Array(entries.prefix(Self.historyLimit)).map { AuditRedaction.redacted($0, flags: state.flags) }, environments: environments)
        let rows: [[String: Any]] = changelog.changes.map { change in
            let id = "change-\(change.entries[0].environment)-\(change.entries[0].revision)-\(change.key)"
            // Environments whose diff is the same share one table (a creation is one table, not one per environment).
            var diffs: [(environments: [String], lines: [AuditDiff.Line])] = []
            for entry in change.entries {
                let lines = AuditDiff(before: entry.before, after: entry.after).lines
                if let index = diffs.firstIndex(where: { $0.lines == lines }) {
                    diffs[index].environments.append(entry.environment)
                } else {
                    diffs.append(([entry.environment], lines))
                }
            }
            return Self.omittingEmpty([
                "time": formatter.string(from: change.time), "day": Self.shortTime(change.time),
                "actor": change.actor, "reason": change.reason ?? "", "subject": change.subject.rawValue, "key": change.key,
                "flagLink": change.subject == .flag && state.flags[change.key] != nil ? "/console/flags/\(Self.escaped(change.key))" : "",
                "summary": change.summary,
                "reverted": change.isRevert,
                "revisions": change.entries.map { "\($0.environment) r\($0.revision)" }.joined(separator: ", "),
                "fieldCount": diffs.reduce(0) { $0 + $1.lines.count },
                "diffs": diffs.map { diff in
                    [
                        "where": Changelog.list(diff.environments),
                        "lines": diff.lines.map { ["path": $0.path, "before": $0.before ?? "—", "after": $0.after ?? "—"] },
                    ] as [String: Any]
                },
                "reverts": change.entries.filter { $0.subject == .flag && $0.after != nil }.map { entry in
                    [
                        "environment": entry.environment, "revision": entry.revision, "key": entry.key,
                        "id": "entry-\(entry.environment)-\(entry.revision)-\(entry.key)",
                        "filters": filters.map { ["name": "filter-" + $0.0, "value": $0.1] },
                    ] as [String: Any]
                },
                "canRevert": change.subject == .flag && change.entries.contains { $0.after != nil },
                "id": id,
            ], ["reason", "flagLink"])
        }
        var context = layout(visitor, title: "History", section: "history")
        context["entries"] = rows
        context["empty"] = rows.isEmpty
        context["flag"] = flag
        context["actor"] = actor
        context["environments"] = environments.map { ["value": $0, "selected": $0 == environment] as [String: Any] }
        context["error"] = error
        context["notice"] = query["done"].flatMap { Self.notices[$0] }
        return renderer.page("history", context, status: status)
    }

    /// Writes the flag as the audit recorded it at a revision, as a new revision (what
    /// `POST /admin/v1/environments/{env}/flags/{key}/revert` does).
    func revert(_ request: Request, _ visitor: Visitor, _ form: ConsoleForm) async throws -> Response {
        // The history as the visitor filtered it, for a refusal's page.
        let filtered = ConsoleForm(fields: ["flag", "actor", "environment"].reduce(into: [:]) { $0[$1] = form["filter-" + $1] })
        let environment = form["environment"] ?? ""
        let key = form["key"] ?? ""
        guard let revision = Int(form["revision"] ?? "") else {
            return try await historyPage(filtered, visitor, error: "revision: \"\(form["revision"] ?? "")\" is not a whole number", status: .badRequest)
        }
        guard await admin.state.environments[environment] != nil else {
            return try await historyPage(filtered, visitor, error: "environment \"\(environment)\" does not exist", status: .notFound)
        }
        let history: [AuditEntry]
        do {
            history = try await admin.store.audit(environment: environment, key: key, limit: 10_000)
        } catch {
            throw APIError(AdminError(store: error))
        }
        let given = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = given.isEmpty ? "revert \"\(key)\" to revision \(revision)" : given
        let revert = ChangeSet.Revert(environment: environment, revision: revision)
        if let error = await write(visitor, reason: reason, revert: revert, { state throws(AdminError) in
            try RevertPlanner.changes(reverting: key, in: environment, to: revision, history: history, state: state)
        }) {
            return try await historyPage(filtered, visitor, error: error.description, status: APIError(error).status)
        }
        // Back to the history as the visitor filtered it.
        let kept = ["flag", "actor", "environment"].compactMap { name -> String? in
            guard let value = form["filter-" + name], !value.isEmpty else { return nil }
            return "\(name)=\(Self.escaped(value))"
        }
        return Self.redirect("/console/history?" + (kept + ["done=reverted"]).joined(separator: "&"))
    }
}
