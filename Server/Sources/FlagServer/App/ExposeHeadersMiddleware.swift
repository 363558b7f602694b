import HTTPTypes
import Hummingbird

/// Adds `Access-Control-Expose-Headers` to every cross-origin response (not only to preflights,
/// as Hummingbird's `CORSMiddleware` does), errors included, so that browsers let scripts read
/// `ETag` and `Retry-After` on a 429 or a 503 as on a 200.
///
/// Errors are rendered into responses here, so that every error the routes or the middleware
/// inside throw (``APIError``, Hummingbird's own `HTTPError`, or either wrapped by
/// `CORSMiddleware` with its headers) gets the header.
struct ExposeHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let headers: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.origin] != nil, request.method != .options else { return try await next(request, context) }
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.accessControlExposeHeaders] = headers
        return response
    }
}
