import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Change requests of an environment (Server/Docs/Approvals.md): the list, and one request with
/// its exact diff, approvals and history, and the approve, reject and apply forms (the flag
/// page's settings form opens one with "Propose as change request"). The console
/// user is the identity (`user <name>`); the rules are those of the admin API (no self-approval,
/// one approval per identity, apply only at the approved revision).
extension ConsoleRoutes {
    static let changeRequestNotices = [
        "opened": "Opened: it applies once approved.", "approved": "Approved.", "rejected": "Rejected: the change request is closed.",
        "applied": "Applied: written as a new revision.",
    ]

    func registerChangeRequests(on router: Router<BasicRequestContext>) {
        router.get("/console/environments/:environment/change-requests") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in try await changeRequestsPage(visitor, environment: environment) }
        }
        router.get("/console/environments/:environment/change-requests/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            return try await page(request) { visitor in
                try await changeRequestPage(
                    visitor, environment: environment, id: id, notice: Self.query(of: request)["done"].flatMap { Self.changeRequestNotices[$0] })
            }
        }
        for action in ["approve", "reject", "apply"] {
            router.post("/console/environments/:environment/change-requests/:id/\(action)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                return try await change(request) { visitor, form in
                    try await reviewChangeRequest(visitor, form, action: action, environment: environment, id: id)
                }
            }
        }
    }

    func consoleApprovals() throws -> Approvals {
        guard let store = admin.store.capabilities.approvals else { throw Self.notFound("change requests (this store keeps none)") }
        return Approvals(admin: admin, store: store, now: now)
    }

    func changeRequestsPage(_ visitor: Visitor, environment: String) async throws -> Response {
        guard await admin.state.environments[environment] != nil else { throw Self.notFound("environment \"\(environment)\"") }
        let approvals = try consoleApprovals()
        let requests: [ChangeRequest]
        let rule: ApprovalRule?
        do {
            requests = try await approvals.changeRequests(environment: environment)
            rule = try await approvals.rules()[environment]
        } catch {
            throw APIError(error)
        }
        var context = layout(visitor, title: "Change requests in \(environment)", section: "flags")
        context["environment"] = environment
        context["rule"] = rule.map { ["requiredApprovals": $0.requiredApprovals, "appliesTo": $0.appliesTo.sorted().map(\.rawValue).joined(separator: ", ")] as [String: Any] }
        context["empty"] = requests.isEmpty
        context["requests"] = requests.map { request -> [String: Any] in
            [
                "id": request.id, "link": "/console/environments/\(Self.escaped(environment))/change-requests/\(Self.escaped(request.id))",
                "subject": Self.subject(of: request), "author": request.author.description, "status": request.status.rawValue,
                "approvals": "\(request.approvals.count) of \(rule?.requiredApprovals ?? 0)", "reason": request.reason,
                "created": Self.shortTime(request.createdAt),
            ]
        }
        return renderer.page("change-requests", context)
    }

    func changeRequestPage(
        _ visitor: Visitor, environment: String, id: String, notice: String? = nil, problems: [String] = [],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let approvals = try consoleApprovals()
        let request: ChangeRequest
        let required: Int
        do {
            request = try await approvals.changeRequest(id: id, environment: environment)
            required = try await approvals.rules()[environment]?.requiredApprovals ?? 0
        } catch {
            throw APIError(error)
        }
        let flags = await admin.state.flags
        let me = ApprovalIdentity(kind: .user, name: visitor.user.name)
        var context = layout(visitor, title: "Change request \(id)", section: "flags")
        context["notice"] = notice
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        // Mustache renders a section for any string, even an empty one: the optional facts are left out.
        context["request"] = Self.omittingEmpty([
            "id": request.id, "environment": environment, "subject": Self.subject(of: request), "status": request.status.rawValue,
            "open": request.status == .open, "author": request.author.description, "reason": request.reason,
            "basedOn": request.basedOnRevision, "appliedRevision": request.appliedRevision.map(String.init) ?? "",
            "applyAt": request.applyAt.map(Self.shortTime) ?? "",
            "approvalCount": "\(request.approvals.count) of \(required)",
            "base": "/console/environments/\(Self.escaped(environment))/change-requests/\(Self.escaped(request.id))",
            "listLink": "/console/environments/\(Self.escaped(environment))/change-requests",
            "mine": request.author == me, "approvedByMe": request.approvals.contains { $0.approver == me },
            "diffs": request.diff.map { difference -> [String: Any] in
                let entry = AuditRedaction.redacted(
                    AuditEntry(
                        environment: difference.environment, revision: 0, time: request.createdAt, actor: "", reason: nil,
                        subject: difference.subject, key: difference.key, before: difference.before, after: difference.after),
                    flags: flags)
                return [
                    "where": "\(difference.subject == .approvalRule ? "approval rule" : difference.subject.rawValue) \(difference.key) in \(difference.environment)",
                    "lines": AuditDiff(before: entry.before, after: entry.after).lines.map {
                        ["path": $0.path, "before": $0.before ?? "—", "after": $0.after ?? "—"]
                    },
                ]
            },
            "approvals": request.approvals.map {
                Self.omittingEmpty(["approver": $0.approver.description, "time": Self.shortTime($0.time), "comment": $0.comment ?? ""], ["comment"])
            },
            "history": request.history.map {
                Self.omittingEmpty(
                    [
                        "action": $0.action.rawValue.replacingOccurrences(of: "_", with: " "), "actor": $0.actor.description,
                        "time": Self.shortTime($0.time), "comment": $0.comment ?? "", "revision": $0.revision.map { "revision \($0)" } ?? "",
                    ], ["comment", "revision"])
            },
        ], ["appliedRevision", "applyAt"])
        return renderer.page("change-request", context, status: status)
    }

    func reviewChangeRequest(_ visitor: Visitor, _ form: ConsoleForm, action: String, environment: String, id: String) async throws -> Response {
        let approvals = try consoleApprovals()
        let me = ApprovalIdentity(kind: .user, name: visitor.user.name)
        let comment = form["comment"].flatMap { $0.isEmpty ? nil : $0 }
        do {
            switch action {
            case "approve": _ = try await approvals.approve(id: id, environment: environment, by: me, comment: comment)
            case "reject": _ = try await approvals.reject(id: id, environment: environment, by: me, comment: comment)
            default: _ = try await approvals.apply(id: id, environment: environment, by: me, actor: visitor.user.name)
            }
        } catch {
            return try await changeRequestPage(
                visitor, environment: environment, id: id, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        let done = ["approve": "approved", "reject": "rejected", "apply": "applied"][action] ?? ""
        return Self.redirect("/console/environments/\(Self.escaped(environment))/change-requests/\(Self.escaped(id))?done=\(done)")
    }

    /// "flag checkout", "segment beta", "approval rule".
    static func subject(of request: ChangeRequest) -> String {
        if let flag = request.proposal.flag { return "flag \(flag)" }
        if let segment = request.proposal.segment { return "segment \(segment)" }
        return "approval rule"
    }
}
