import FlagServerModel
import Foundation
import Hummingbird

extension AdminRoutes {
    /// `GET /admin/v1/environments/{environment}/rollouts/{id}/attribution`: the plan's
    /// ``RolloutAttribution``, the sessions and crashes received since its run started and those
    /// without a variant of its flag, which no guardrail counts (`Server/Docs/Rollouts.md`).
    ///
    /// Answers 404 for an unknown plan and 409 (`no_event_store`) when the server keeps no events.
    func registerRolloutAttributionRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/rollouts/:id/attribution") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let rollouts = try rollouts()
            let plan = try await Self.run { () async throws(AdminError) in try await rollouts.plan(id: id, environment: environment) }
            guard let events = eventStore?.capabilities.rolloutAttribution else {
                throw APIError(
                    .conflict, code: "no_event_store",
                    message: "this server keeps no events (it was started without an event store), so it has no sessions or crashes to count")
            }
            do throws(StoreError) {
                return JSONBody.response(try await RolloutAttribution.read(plan, from: events))
            } catch {
                throw APIError(AdminError(store: error))
            }
        }
    }
}
