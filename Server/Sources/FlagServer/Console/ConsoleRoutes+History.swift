import FlagEvaluation
import Foundation
import HTTPTypes
import Hummingbird

/// The audit log with filters, readable diffs and "revert to this".
extension ConsoleRoutes {
    /// Most entries the history page lists.
    static let historyLimit = 200

    func registerHistory(on router: Router<BasicRequestContext>) {
        router.get("/console/history") { request, _ in
            try await page(request) { visitor in try await historyPage(request, visitor) }
        }
        router.post("/console/history/revert") { request, _ in
            try await change(request) { visitor, form in try await revert(request, visitor, form) }
        }
    }

    func historyPage(
        _ request: Request, _ visitor: Visitor, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let state = await admin.state
        let query = Self.query(of: request)
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
        let rows: [[String: Any]] = entries.prefix(Self.historyLimit).map { raw in
            let entry = AuditRedaction.redacted(raw, flags: state.flags)
            let diff = AuditDiff(before: entry.before, after: entry.after)
            return Self.omittingEmpty([
                "time": formatter.string(from: entry.time), "environment": entry.environment, "revision": entry.revision,
                "actor": entry.actor, "reason": entry.reason ?? "", "subject": entry.subject.rawValue, "key": entry.key,
                "change": entry.revertedTo.map { "reverted to revision \($0)" }
                    ?? (entry.before == nil ? "created" : (entry.after == nil ? "deleted" : "changed")),
                "reverted": entry.revertedTo != nil,
                "lines": diff.lines.map { ["path": $0.path, "before": $0.before ?? "—", "after": $0.after ?? "—"] },
                "canRevert": entry.subject == .flag && entry.after != nil,
                "id": "entry-\(entry.environment)-\(entry.revision)-\(entry.key)",
            ], ["reason"])
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
        let environment = form["environment"] ?? ""
        let key = form["key"] ?? ""
        guard let revision = Int(form["revision"] ?? "") else {
            return try await historyPage(request, visitor, error: "revision: \"\(form["revision"] ?? "")\" is not a whole number", status: .badRequest)
        }
        guard await admin.state.environments[environment] != nil else {
            return try await historyPage(request, visitor, error: "environment \"\(environment)\" does not exist", status: .notFound)
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
            return try await historyPage(request, visitor, error: error.description, status: APIError(error).status)
        }
        return Self.redirect("/console/history?flag=\(Self.escaped(key))&done=reverted")
    }
}
