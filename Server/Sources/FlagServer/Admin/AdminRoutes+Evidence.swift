import FlagServerModel
import Hummingbird

extension AdminRoutes {
    /// `GET /admin/v1/environments/{environment}/evidence?days=N`: per flag of the environment,
    /// whether it is `active`, `unused`, `settled` or `unknown`, with the figures that say so (see
    /// ``FlagEvidence``). Any admin token of the environment may read it.
    func registerEvidenceRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/evidence") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            // In 1…365, as the OpenAPI document says (DocumentedOperationsMiddleware checked it).
            let days = request.uri.queryParameters["days"].flatMap { Int($0) }.map {
                max(1, min($0, FlagEvidence.maximumDays))
            } ?? FlagEvidence.defaultDays
            let state = await admin.state
            guard let settings = state.environments[environment]?.settings else { throw Self.missing("environment \"\(environment)\"") }
            let flags = Array(settings.keys.filter { state.flags[$0] != nil })
            let answer: EnvironmentEvidence
            do throws(StoreError) {
                answer = try await evidence.evidence(environment: environment, flags: flags, days: days)
            } catch {
                throw APIError(AdminError(store: error))
            }
            return JSONBody.response(answer)
        }
    }
}
