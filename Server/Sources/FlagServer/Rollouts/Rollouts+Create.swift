import FlagServerModel
import Foundation

extension Rollouts {
    /// Creates a draft plan of `body` in `environment`: from its template (which must exist), its
    /// fields overriding the template's, checked by ``create(_:)``. What the admin API's
    /// `POST …/rollouts` and the console's new-plan form both call.
    func createPlan(_ body: RolloutRequests.CreatePlan, environment: String, actor: String) async throws(AdminError) -> RolloutPlan {
        var template: RolloutTemplate?
        if let name = body.template {
            template = try await self.template(name: name)
            guard template != nil else { throw .notFound("rollout template \"\(name)\" does not exist") }
        }
        guard let steps = body.steps ?? template?.steps else { throw .badRequest("steps: give steps or a template") }
        let time = now()
        var plan = RolloutPlan(
            id: "ro-" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16), flag: body.flag,
            environment: environment, oldVariant: body.oldVariant, newVariant: body.newVariant, steps: steps,
            guardrails: body.guardrails ?? template?.guardrails ?? [], alpha: body.alpha ?? template?.alpha ?? 0.05,
            evaluationIntervalSeconds: body.evaluationIntervalSeconds ?? template?.evaluationIntervalSeconds ?? 300,
            onRegression: body.onRegression ?? template?.onRegression ?? .rollback,
            restart: body.restart ?? template?.restart ?? .sameUnits, salt: RolloutPlan.makeSalt(), template: template?.name,
            createdAt: time, actor: actor)
        plan.minimumUnits = body.minimumUnits
        plan.updatedAt = time
        return try await create(plan)
    }
}
