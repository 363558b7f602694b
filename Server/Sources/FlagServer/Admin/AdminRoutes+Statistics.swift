import FlagServerModel
import FlagStatistics
import Hummingbird

extension ExperimentData: DocumentedRequestBody {
    static var schemaName: String { "ExperimentData" }
}

extension AdminRoutes {
    /// `POST /admin/v1/statistics/analyze`: the statistics engine on sufficient statistics, so
    /// that any figure of a results page can be recomputed from its export. Pure computation,
    /// bounded by the admin body limit and the engine's bounds on metrics and arms; any admin
    /// token may use it.
    func registerStatisticsRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.post("/statistics/analyze") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: nil)
            let data = try await JSONBody.decode(ExperimentData.self, from: request, limit: limits.maximumAdminBytes)
            do throws(StatisticsError) {
                return JSONBody.response(try StatisticsEngine.analyze(data))
            } catch {
                throw APIError(
                    .unprocessableContent, code: "invalid", message: error.description,
                    problems: [ValidationError(key: nil, field: error.path, problem: error.problem)])
            }
        }
    }
}
