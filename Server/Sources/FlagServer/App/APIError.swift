import FlagServerModel
public import HTTPTypes
import Hummingbird
import Foundation

/// An error answer of the admin API and the delivery endpoints:
/// `{"error": {"code": …, "message": …, "problems": [...]}}`, where `message` says what and where.
public struct APIError: HTTPResponseError {
    /// The HTTP status of the answer.
    public var status: HTTPResponse.Status
    /// A stable machine-readable code (`not_found`, `conflict`, `invalid`, …).
    public var code: String
    /// What went wrong and where, for people.
    public var message: String
    /// Each problem of an invalid write (422), else empty.
    public var problems: [ValidationError]
    /// Extra headers of the answer (`Retry-After` for a 503).
    public var headers: HTTPFields

    /// An error answer with `status` and `code`.
    public init(
        _ status: HTTPResponse.Status, code: String, message: String, problems: [ValidationError] = [],
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.problems = problems
        self.headers = headers
    }

    init(_ error: AdminError) {
        switch error {
        case .invalid(let problems):
            self.init(.unprocessableContent, code: "invalid", message: error.description, problems: problems)
        case .notFound(let message): self.init(.notFound, code: "not_found", message: message)
        case .conflict(let message): self.init(.conflict, code: "conflict", message: message)
        case .approvalRequired(let message): self.init(.conflict, code: "approval_required", message: message)
        case .badRequest(let message): self.init(.badRequest, code: "bad_request", message: message)
        case .internalFailure(let message): self.init(.internalServerError, code: "internal", message: message)
        case .unavailable(let message):
            self.init(
                .serviceUnavailable, code: "unavailable", message: message + "; nothing was written, retry later",
                headers: [.retryAfter: String(Self.unavailableRetryAfterSeconds)])
        }
    }

    /// The `Retry-After` of a 503 for an unreachable database or a write out of time.
    static let unavailableRetryAfterSeconds = 5

    struct Body: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var problems: [ValidationError]
        }
        var error: Detail
    }

    /// The JSON answer `{"error": {"code", "message", "problems"}}` with the status and headers.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONBody.response(Body(error: .init(code: code, message: message, problems: problems)), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}
