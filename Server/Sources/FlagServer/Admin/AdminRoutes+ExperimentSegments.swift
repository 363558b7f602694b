import FlagServerModel
import Hummingbird

extension AdminRoutes {
    /// The `segment` and `segments` query parameters of a results request (results by segment);
    /// `nil` without `segment`.
    ///
    /// - Throws: 422 naming the parameter that is not one the server takes.
    static func segmentParameters(_ request: Request) throws -> ExperimentSegmentRequest? {
        let parameters = request.uri.queryParameters
        do {
            return try ExperimentSegmentRequest.parse(
                segment: parameters["segment"].map(String.init), segments: parameters["segments"].map(String.init))
        } catch {
            throw APIError(
                .unprocessableContent, code: "invalid", message: error.description,
                problems: [ValidationError(key: nil, field: error.parameter, problem: error.problem)])
        }
    }
}
