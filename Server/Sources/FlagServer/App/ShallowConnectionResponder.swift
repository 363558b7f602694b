import HTTPTypes
import Hummingbird

/// Answers a request that opens an event stream in a child task of the connection's task, so that
/// the open stream keeps only the memory of its connection's shallow loop, not that of the router
/// and middleware that answered it.
///
/// Hummingbird serves a connection in one task, and a task keeps the slabs its async frames were
/// allocated from until it ends. The router and the middleware chain (CORS, metrics, the request
/// log, authentication, the route) need about 15 KiB of frames in release: run in the
/// connection's task, that memory stays with the connection for as long as it is open, which made
/// an idle event stream cost 36 KiB (`Server/Docs/Scale.md`, "Streams"). Run in a child task, it
/// is freed when the child ends, before the response body is written: the stream's loop writes
/// its events from the connection's task with only the frames of that loop.
///
/// Only event streams pay for it: the child costs a task and two hops between threads, about
/// 3 µs, a tenth of the throughput of the lightest routes (measured with wrk on `GET
/// /health/live`), for a connection that is answered in microseconds and may be closed at once.
/// Task-local values (the request's logger, tracing context) are inherited by the child, and
/// cancelling the connection's task cancels it.
struct ShallowConnectionResponder<Responder: HTTPResponder>: HTTPResponder where Responder.Context: Sendable {
    typealias Context = Responder.Context

    let responder: Responder

    func respond(to request: Request, context: Context) async throws -> Response {
        guard EventStreamRoutes.opensStream(method: request.method, path: request.head.path) else {
            return try await responder.respond(to: request, context: context)
        }
        return try await withThrowingTaskGroup(of: Response.self, returning: Response.self) { group in
            group.addTask { try await responder.respond(to: request, context: context) }
            guard let response = try await group.next() else { throw CancellationError() }
            return response
        }
    }
}
