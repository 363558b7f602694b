import HTTPTypes
import Hummingbird

/// Adds `Access-Control-Expose-Headers` to cross-origin responses (not only to preflights, as
/// Hummingbird's `CORSMiddleware` does), so that browsers let scripts read `ETag` and
/// `Retry-After`.
struct ExposeHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let headers: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.origin] != nil, request.method != .options else { return try await next(request, context) }
        do {
            var response = try await next(request, context)
            response.headers[.accessControlExposeHeaders] = headers
            return response
        } catch var error as APIError {
            error.headers[.accessControlExposeHeaders] = headers
            throw error
        }
    }
}
