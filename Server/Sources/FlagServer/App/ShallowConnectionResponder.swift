import Hummingbird

/// Answers each request in a child task of the connection's task, so that a connection held open
/// (an event stream, or an idle keep-alive connection) keeps only the memory of its shallow
/// connection loop, not that of the deepest request it served.
///
/// Hummingbird serves a connection in one task, and a task keeps the slabs its async frames were
/// allocated from until it ends. The router and the middleware chain (CORS, metrics, the request
/// log, authentication, the route) need about 20 KiB of frames: run in the connection's task,
/// that memory stays with the connection for as long as it is open, which made an idle event
/// stream cost about 26 KiB. Run in a child task, it is freed when the child ends, before the
/// response body is written: the event stream's loop writes its events from the connection's task
/// with only the frames of that loop.
///
/// Task-local values (the request's logger, tracing context) are inherited by the child, and
/// cancelling the connection's task cancels it.
struct ShallowConnectionResponder<Responder: HTTPResponder>: HTTPResponder where Responder.Context: Sendable {
    typealias Context = Responder.Context

    let responder: Responder

    func respond(to request: Request, context: Context) async throws -> Response {
        // `sending`: the request and context move into the child and the response back out; the
        // connection's task waits for it and touches neither meanwhile.
        try await withThrowingTaskGroup(of: Response.self, returning: Response.self) { group in
            group.addTask { try await responder.respond(to: request, context: context) }
            guard let response = try await group.next() else { throw CancellationError() }
            return response
        }
    }
}
