import HTTPTypes
import Hummingbird

/// Stores the notifications a request queued before the request is answered
/// (``WebhookDispatcher/persistQueued(through:)``): a change its caller was told of has its webhook
/// deliveries in the database, and a server killed right after the answer still sends them once
/// it (or another replica) runs again. Only requests that may change something (not `GET`,
/// `HEAD`, `OPTIONS`); a request that queued nothing (event ingestion, a refused write) waits for
/// nothing.
struct NotificationOutboxMiddleware<Context: RequestContext>: RouterMiddleware {
    let dispatcher: WebhookDispatcher

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head, .options:
            return try await next(request, context)
        default:
            let queued = WebhookDispatcher.RequestNotifications()
            do {
                let response = try await WebhookDispatcher.$queuedByRequest.withValue(queued) { try await next(request, context) }
                if let last = queued.last { await dispatcher.persistQueued(through: last) }
                return response
            } catch {
                // A failure after a commit (or a part of a request that committed) still announces it.
                if let last = queued.last { await dispatcher.persistQueued(through: last) }
                throw error
            }
        }
    }
}
