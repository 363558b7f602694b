import FlagServerModel
import Hummingbird

/// Authenticates every request of a route group before its handler runs: a request without a
/// live token of at least `role` is answered 401 (or 403) before any route looks anything up, so
/// that what exists (a token id, a flag, an environment) is never told apart from what does not
/// to a caller without credentials.
///
/// Handlers still call ``RequestAuthenticator/authorize(_:role:environment:)`` for the
/// environment scope and the rate limit.
struct AuthenticationMiddleware<Context: RequestContext>: RouterMiddleware {
    let authenticator: RequestAuthenticator
    let role: TokenRole

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let record = try authenticator.authenticate(request)
        guard record.role >= role else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "token \"\(record.id)\" has role \(record.role.rawValue); this needs \(role.rawValue)")
        }
        return try await next(request, context)
    }
}
