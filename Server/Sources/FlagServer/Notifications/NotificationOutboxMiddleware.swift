import HTTPTypes
import Hummingbird

/// Stores the notifications a request queued before the request is answered
/// (``WebhookDispatcher/persistQueued()``): a change its caller was told of has its webhook
/// deliveries in the database, and a server killed right after the answer still sends them once
/// it (or another replica) runs again. Requests that may change something only (not `GET`,
/// `HEAD`, `OPTIONS`); a request that queued nothing does not wait.
struct NotificationOutboxMiddleware<Context: RequestContext>: RouterMiddleware {
    let dispatcher: WebhookDispatcher

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head, .options:
            return try await next(request, context)
        default:
            do {
                let response = try await next(request, context)
                await dispatcher.persistQueued()
                return response
            } catch {
                // A failure after a commit (or a part of a request that committed) still announces it.
                await dispatcher.persistQueued()
                throw error
            }
        }
    }
}
