import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The bodies of the rollout routes (`Server/Docs/Rollouts.md`).
enum RolloutRequests {
    /// `POST /admin/v1/environments/{env}/rollouts`: a plan from a template, from fields, or
    /// from a template with fields overriding it.
    struct CreatePlan: DocumentedRequestBody {
        static var schemaName: String { "CreateRolloutPlan" }
        var flag: String
        var oldVariant: String
        var newVariant: String
        var template: String?
        var steps: [RolloutPlan.Step]?
        var guardrails: [RolloutGuardrail]?
        var alpha: Double?
        /// Units each variant needs before a guardrail is evaluated (100 when absent).
        var minimumUnits: Int?
        var evaluationIntervalSeconds: Int?
        var onRegression: RolloutPlan.RegressionAction?
        var restart: RolloutPlan.Restart?
    }

    /// `POST …/rollouts/{id}/start|pause|resume|rollback`.
    struct Action: DocumentedRequestBody {
        static var schemaName: String { "RolloutAction" }
        var comment: String?
    }

    /// `PUT /admin/v1/rollout-templates/{name}`.
    struct PutTemplate: DocumentedRequestBody {
        static var schemaName: String { "PutRolloutTemplate" }
        var description: String?
        var steps: [RolloutPlan.Step]
        var guardrails: [RolloutGuardrail]?
        var alpha: Double?
        var evaluationIntervalSeconds: Int?
        var onRegression: RolloutPlan.RegressionAction?
        var restart: RolloutPlan.Restart?
    }
}

extension AdminRoutes {
    /// Rollout plans per environment and templates (`Server/Docs/Rollouts.md`).
    func registerRolloutRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/rollouts") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            // As every other list: an environment that does not exist is 404, not an empty list.
            guard await admin.state.environments[environment] != nil else { throw Self.missing("environment \"\(environment)\"") }
            let rollouts = try rollouts()
            let flag = request.uri.queryParameters["flag"].map(String.init)
            let limit = min(500, max(1, request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 100))
            let plans = try await Self.run { () async throws(AdminError) in
                try await rollouts.plans(environment: environment, flag: flag, limit: limit)
            }
            return JSONBody.response(plans)
        }
        group.post("/environments/:environment/rollouts") { request, context in
            let environment = try context.parameters.require("environment")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(RolloutRequests.CreatePlan.self, from: request, limit: limits.maximumAdminBytes)
            let rollouts = try rollouts()
            let plan = try await Self.run { () async throws(AdminError) in
                try await rollouts.createPlan(body, environment: environment, actor: Self.actor(token))
            }
            return JSONBody.response(plan, status: .created)
        }
        group.get("/environments/:environment/rollouts/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let rollouts = try rollouts()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await rollouts.plan(id: id, environment: environment) })
        }
        group.delete("/environments/:environment/rollouts/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let rollouts = try rollouts()
            try await Self.run { () async throws(AdminError) in try await rollouts.delete(id: id, environment: environment) }
            return Response(status: .noContent)
        }
        for action in ["start", "pause", "resume", "rollback"] {
            group.post("/environments/:environment/rollouts/:id/\(action)") { request, context in
                let environment = try context.parameters.require("environment")
                let id = try context.parameters.require("id")
                let token = try authenticator.authorize(request, role: .admin, environment: environment)
                let body = try await JSONBody.decode(RolloutRequests.Action.self, from: request, limit: limits.maximumAdminBytes)
                let rollouts = try rollouts()
                let actor = Self.actor(token)
                let plan = try await Self.run { () async throws(AdminError) in
                    switch action {
                    case "start": try await rollouts.start(id: id, environment: environment, actor: actor)
                    case "pause": try await rollouts.pause(id: id, environment: environment, actor: actor, comment: body.comment)
                    case "resume": try await rollouts.resume(id: id, environment: environment, actor: actor)
                    default: try await rollouts.rollback(id: id, environment: environment, actor: actor, comment: body.comment)
                    }
                }
                return JSONBody.response(plan)
            }
        }

        group.get("/rollout-templates") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            let rollouts = try rollouts()
            let templates = try await Self.run { () async throws(AdminError) in try await rollouts.templates() }
            return JSONBody.response(templates)
        }
        group.get("/rollout-templates/:name") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            let name = try context.parameters.require("name")
            let rollouts = try rollouts()
            let template = try await Self.run { () async throws(AdminError) in try await rollouts.template(name: name) }
            guard let template else { throw Self.missing("rollout template \"\(name)\"") }
            return JSONBody.response(template)
        }
        group.put("/rollout-templates/:name") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let name = try context.parameters.require("name")
            let body = try await JSONBody.decode(RolloutRequests.PutTemplate.self, from: request, limit: limits.maximumAdminBytes)
            let rollouts = try rollouts()
            let time = now()
            let template = RolloutTemplate(
                name: name, description: body.description, steps: body.steps, guardrails: body.guardrails ?? [],
                alpha: body.alpha ?? 0.05, evaluationIntervalSeconds: body.evaluationIntervalSeconds ?? 300,
                onRegression: body.onRegression ?? .rollback, restart: body.restart ?? .sameUnits, createdAt: time)
            let stored = try await Self.run { () async throws(AdminError) in try await rollouts.putTemplate(template) }
            return JSONBody.response(stored)
        }
        group.delete("/rollout-templates/:name") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let name = try context.parameters.require("name")
            let rollouts = try rollouts()
            try await Self.run { () async throws(AdminError) in try await rollouts.deleteTemplate(name: name) }
            return Response(status: .noContent)
        }
    }

    /// The rollouts of the server's store.
    func rollouts() throws -> Rollouts {
        guard let store = admin.store.capabilities.rollouts else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no rollout plans")
        }
        return Rollouts(admin: admin, store: store, events: eventStore?.capabilities.rolloutEvents,
            results: eventStore?.capabilities.experimentResults, now: now)
    }
}
