import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The bodies of the approval routes.
enum ApprovalRequests {
    /// `PUT /admin/v1/environments/{env}/approval-rule`.
    struct PutRule: DocumentedRequestBody {
        static var schemaName: String { "PutApprovalRule" }
        var requiredApprovals: Int
        var appliesTo: [ApprovalRule.Scope]?
        var reason: String?

        var rule: ApprovalRule {
            ApprovalRule(requiredApprovals: requiredApprovals, appliesTo: appliesTo.map(Set.init) ?? ApprovalRule.defaultScopes)
        }
    }

    /// `POST …/change-requests` and `PUT …/change-requests/{id}`.
    struct ChangeRequestBody: DocumentedRequestBody {
        static var schemaName: String { "ChangeRequestBody" }
        var change: ChangeRequest.Proposal
        var reason: String
        /// RFC 3339; not applied before.
        var applyAt: String?

        func applyTime() throws -> Date? {
            guard let applyAt else { return nil }
            guard let date = try? Date(applyAt, strategy: .iso8601) else {
                throw APIError(.badRequest, code: "bad_request", message: "applyAt: expected an RFC 3339 time, got \"\(applyAt)\"")
            }
            return date
        }
    }

    /// `POST …/change-requests/{id}/approve` and `…/reject`.
    struct Review: DocumentedRequestBody {
        static var schemaName: String { "ChangeRequestReview" }
        var comment: String?
    }

    /// `POST …/flags/{key}/kill`.
    struct Kill: DocumentedRequestBody {
        static var schemaName: String { "KillSwitch" }
        var reason: String
    }
}

/// A change request as the API shows it: the stored request, the approvals the environment's
/// rule asks for now, and the diff with sensitive flags' values redacted.
struct ChangeRequestView: Encodable {
    var request: ChangeRequest
    var requiredApprovals: Int

    init(_ request: ChangeRequest, requiredApprovals: Int, flags: [String: FlagRecord]) {
        var shown = request
        shown.diff = request.diff.map { difference in
            let entry = AuditRedaction.redacted(
                AuditEntry(
                    environment: difference.environment, revision: 0, time: request.createdAt, actor: "", reason: nil,
                    subject: difference.subject, key: difference.key, before: difference.before, after: difference.after),
                flags: flags)
            var redacted = difference
            redacted.before = entry.before
            redacted.after = entry.after
            return redacted
        }
        self.request = shown
        self.requiredApprovals = requiredApprovals
    }

    enum Extra: String, CodingKey { case requiredApprovals, approved }

    func encode(to encoder: any Encoder) throws {
        try request.encode(to: encoder)
        var container = encoder.container(keyedBy: Extra.self)
        try container.encode(requiredApprovals, forKey: .requiredApprovals)
        try container.encode(request.approvals.count >= requiredApprovals, forKey: .approved)
    }
}

extension AdminRoutes {
    /// The approval rule, change requests and kill switch of an environment
    /// (`Server/Docs/Approvals.md`).
    func registerApprovalRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/approval-rule") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let approvals = try approvals(environment: environment)
            let rule = try await Self.run { () async throws(AdminError) in try await approvals.rules()[environment] }
            guard let rule else { throw Self.missing("an approval rule for environment \"\(environment)\"") }
            return JSONBody.response(rule)
        }
        group.put("/environments/:environment/approval-rule") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ApprovalRequests.PutRule.self, from: request, limit: limits.maximumAdminBytes)
            let approvals = try approvals(environment: environment)
            try await Self.run { () async throws(AdminError) in
                try await approvals.putRule(body.rule, environment: environment, actor: Self.actor(token), reason: body.reason)
            }
            return JSONBody.response(body.rule)
        }
        group.delete("/environments/:environment/approval-rule") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let approvals = try approvals(environment: environment)
            let reason = request.uri.queryParameters["reason"].map(String.init)
            try await Self.run { () async throws(AdminError) in
                try await approvals.putRule(nil, environment: environment, actor: Self.actor(token), reason: reason)
            }
            return Response(status: .noContent)
        }

        group.get("/environments/:environment/change-requests") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            // As every other list: an environment that does not exist is 404, not an empty list.
            guard await admin.state.environments[environment] != nil else { throw Self.missing("environment \"\(environment)\"") }
            let approvals = try approvals(environment: environment)
            let limit = request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 100
            let requests = try await Self.run { () async throws(AdminError) in try await approvals.changeRequests(environment: environment, limit: limit) }
            return try await views(requests, approvals: approvals, environment: environment)
        }
        group.post("/environments/:environment/change-requests") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ApprovalRequests.ChangeRequestBody.self, from: request, limit: limits.maximumAdminBytes)
            let applyAt = try body.applyTime()
            let approvals = try approvals(environment: environment)
            let opened = try await Self.run { () async throws(AdminError) in
                try await approvals.open(
                    environment: environment, proposal: body.change, reason: body.reason, applyAt: applyAt, by: Self.identity(token))
            }
            return try await view(opened, approvals: approvals, status: .created)
        }
        group.get("/environments/:environment/change-requests/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let approvals = try approvals(environment: environment)
            let found = try await Self.run { () async throws(AdminError) in try await approvals.changeRequest(id: id, environment: environment) }
            return try await view(found, approvals: approvals)
        }
        group.put("/environments/:environment/change-requests/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ApprovalRequests.ChangeRequestBody.self, from: request, limit: limits.maximumAdminBytes)
            let applyAt = try body.applyTime()
            let approvals = try approvals(environment: environment)
            let edited = try await Self.run { () async throws(AdminError) in
                try await approvals.edit(
                    id: id, environment: environment, proposal: body.change, reason: body.reason, applyAt: applyAt,
                    by: Self.identity(token))
            }
            return try await view(edited, approvals: approvals)
        }
        for (action, approve) in [("approve", true), ("reject", false)] {
            group.post("/environments/:environment/change-requests/:id/\(action)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                let token = try authenticator.authorize(request, role: .admin, environment: environment)
                let body = try await JSONBody.decode(ApprovalRequests.Review.self, from: request, limit: limits.maximumAdminBytes)
                let approvals = try approvals(environment: environment)
                let reviewed = try await Self.run { () async throws(AdminError) in
                    approve
                        ? try await approvals.approve(id: id, environment: environment, by: Self.identity(token), comment: body.comment)
                        : try await approvals.reject(id: id, environment: environment, by: Self.identity(token), comment: body.comment)
                }
                return try await view(reviewed, approvals: approvals)
            }
        }
        group.post("/environments/:environment/change-requests/:id/apply") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let approvals = try approvals(environment: environment)
            let applied = try await Self.run { () async throws(AdminError) in
                try await approvals.apply(id: id, environment: environment, by: Self.identity(token), actor: Self.actor(token))
            }
            return try await view(applied, approvals: approvals)
        }

        group.post("/environments/:environment/flags/:key/kill") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ApprovalRequests.Kill.self, from: request, limit: limits.maximumAdminBytes)
            let approvals = try approvals(environment: environment)
            let revisions = try await Self.run { () async throws(AdminError) in
                try await approvals.kill(flag: key, environment: environment, reason: body.reason, actor: Self.actor(token))
            }
            return JSONBody.response(AdminResponses.WriteResult(revisions: revisions))
        }
    }

    /// The approvals of the server's store, for an existing environment.
    func approvals(environment: String) throws -> Approvals {
        guard let store = admin.store.capabilities.approvals else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no approval rules or change requests")
        }
        return Approvals(admin: admin, store: store, now: now)
    }

    /// Who a token is when it approves: its name.
    static func identity(_ token: TokenRecord) -> ApprovalIdentity { ApprovalIdentity(kind: .token, name: token.name) }

    func view(_ request: ChangeRequest, approvals: Approvals, status: HTTPResponse.Status = .ok) async throws -> Response {
        let required = try await Self.run { () async throws(AdminError) in try await approvals.rules()[request.environment]?.requiredApprovals ?? 0 }
        return JSONBody.response(ChangeRequestView(request, requiredApprovals: required, flags: await admin.state.flags), status: status)
    }

    func views(_ requests: [ChangeRequest], approvals: Approvals, environment: String) async throws -> Response {
        let required = try await Self.run { () async throws(AdminError) in try await approvals.rules()[environment]?.requiredApprovals ?? 0 }
        let flags = await admin.state.flags
        return JSONBody.response(requests.map { ChangeRequestView($0, requiredApprovals: required, flags: flags) })
    }
}
