import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /ofrep/v1/events`: a server-sent-events stream of the token's environment.
///
/// A browser's `EventSource`, which cannot send `Authorization`, opens it with a single-use
/// ticket instead: `POST /ofrep/v1/events/tickets` with the token answers
/// `{"ticket", "expiresInSeconds": 60, "eventStream": "/ofrep/v1/events?ticket=…"}` (see
/// ``StreamTickets``).
///
/// Every committed revision sends `id: <revision>` with
/// `{"type":"refetchEvaluation","etag":"<revision>","lastModified":<Unix seconds of its commit>}`
/// (OFREP ADR 0008: a client sends both back as `flagConfigEtag` and `flagConfigLastModified`
/// on the refetch the event triggers), and this server's additions against a refetch storm:
/// `changes` (the new entries of flags that answer the same to everyone, when only such flags
/// changed) and `refetchSpreadMs` (see ``RevisionEvents``). A client
/// reconnecting with `Last-Event-ID` older than the current revision gets one event for the
/// current revision at once (refetch: it missed something); an up-to-date client gets nothing
/// until the next write.
///
/// Between events the stream sends the comment `: keep-alive` every
/// ``FlagServer/eventStreamKeepAlive`` (15 s by default; one timer for all streams, see
/// `EventStreamService`), so proxies and load balancers that cut idle connections (often after 60 s) keep it
/// open; SSE clients ignore comment lines.
struct EventStreamRoutes: Sendable {
    let authenticator: RequestAuthenticator
    let events: EventHub
    let tickets: StreamTickets
    /// Each revision's event, built once.
    let revisionEvents: RevisionEvents

    /// The answer to `POST /ofrep/v1/events/tickets`.
    struct IssuedTicket: Encodable {
        var ticket: String
        var expiresInSeconds: Int
        /// The stream's URL with the ticket, for `new EventSource(…)`.
        var eventStream: String
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/ofrep/v1/events/tickets") { request, _ in
            let token = try authenticator.authorize(request, role: .client, environment: nil)
            _ = try authenticator.environment(of: token)  // a delivery token, of one environment
            guard let ticket = tickets.issue(for: token) else {
                throw APIError(
                    .serviceUnavailable, code: "unavailable", message: "too many stream tickets are outstanding; retry",
                    headers: [.retryAfter: "1"])
            }
            return JSONBody.response(
                IssuedTicket(ticket: ticket, expiresInSeconds: Int(tickets.lifetime), eventStream: "/ofrep/v1/events?ticket=\(ticket)"),
                status: .created, headers: [.cacheControl: "no-store"])
        }
        router.get("/ofrep/v1/events") { request, _ in
            // A browser's EventSource cannot send Authorization: it sends a ticket instead.
            let token: TokenRecord
            if let ticket = request.uri.queryParameters["ticket"] {
                token = try authenticator.authorize(ticket: String(ticket), from: tickets, request: request)
            } else {
                token = try authenticator.authorize(request, role: .client, environment: nil)
            }
            let environment = try authenticator.environment(of: token)
            // Counted per client, like the rate limit: a fleet of phones shares one token.
            let owner = authenticator.rateLimitKey(token, request: request)
            if let offer = request.headers[.flagServerStreamFront].flatMap({ Int($0) }),
                let handoff = events.take(offer: offer) as? StreamHandoff
            {
                return try handOff(to: handoff, request, environment: environment, owner: owner)
            }
            return try stream(request, environment: environment, owner: owner)
        }
    }

    /// The stream, handed to the connection's ``EventStreamFront`` once its first lines are
    /// written: the request's task ends then, and the open stream costs no task.
    private func handOff(
        to handoff: StreamHandoff, _ request: Request, environment: CompiledEnvironment, owner: String
    ) throws -> Response {
        let key = environment.key
        // Subscribe before reading the revision, so no write falls between the two (the front
        // holds what the hub sends until the stream is its own).
        let subscription = try subscribe { try events.subscribe(environment: key, owner: owner, sink: handoff) }
        let opening = opening(request, environment: environment)
        handoff.open(subscription, at: opening.revision) { revision in event(key, revision: revision) }
        let body = ResponseBody { writer in
            try await writer.write(opening.lines)
            try await writer.finish(nil)  // kept from the client: the front's cue
        }
        var headers = Self.streamHeaders
        headers[.flagServerStreamHandoff] = "1"
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The stream, written by the request's own task (on a server without ``EventStreamFront``).
    private func stream(_ request: Request, environment: CompiledEnvironment, owner: String) throws -> Response {
        let key = environment.key
        let signals = try subscribe { try events.subscribe(environment: key, owner: owner) }
        let opening = opening(request, environment: environment)
        // Keep-alives come through the hub (`EventStreamService`); a closed connection ends the
        // loop at the next write.
        let body = ResponseBody { writer in
            try await writer.write(opening.lines)
            var sent = opening.revision
            // The server waits for open requests when it shuts down gracefully, and it is shut
            // down before the services (`EventStreamService`): end the streams then, or
            // shutdown would wait for clients that never disconnect.
            try await withGracefulShutdownHandler {
                for await signal in signals {
                    switch signal {
                    case .revision(let revision) where revision > sent:
                        sent = revision
                        try await writer.write(event(key, revision: revision))
                    case .revision:
                        break
                    case .keepAlive:
                        try await writer.write(Self.keepAliveComment)
                    }
                }
            } onGracefulShutdown: {
                events.finishAll()
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.streamHeaders, body: body)
    }

    /// Subscribes to the hub, a refusal at a cap becoming 429 (the client's) or 503 (the server's).
    private func subscribe<Value>(_ subscribe: () throws -> Value) throws -> Value {
        do {
            return try subscribe()
        } catch let error as EventHub.Refusal {
            throw APIError(
                error.perOwner ? .tooManyRequests : .serviceUnavailable, code: "too_many_streams",
                message: error.description, headers: [.retryAfter: String(Self.refusedRetryAfterSeconds)])
        }
    }

    /// The revision a stream opens at, and its first lines: a comment naming it, the reconnection
    /// delay, and the revision's event for a client reconnecting with an older `Last-Event-ID`.
    private func opening(_ request: Request, environment: CompiledEnvironment) -> (revision: Int, lines: ByteBuffer) {
        let served = authenticator.publisher.current.environments[environment.key] ?? environment
        revisionEvents.observe(served)
        let current = served.revision
        var lines = ByteBuffer(string: ": environment \(environment.key) at revision \(current)\nretry: 2000\n\n")
        if let lastEventID = request.headers[.lastEventID], Int(lastEventID.trimmingCharacters(in: .whitespaces)) != current {
            var missed = event(environment.key, revision: current)
            lines.writeBuffer(&missed)
        }
        return (current, lines)
    }

    static let streamHeaders: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]

    /// Whether a request with `method` and `path` (with its query) asks for the event stream.
    static func opensStream(method: HTTPRequest.Method, path: String?) -> Bool {
        guard method == .get, let path else { return false }
        return path == "/ofrep/v1/events" || path.hasPrefix("/ofrep/v1/events?")
    }

    /// The `Retry-After` of a stream refused at a cap.
    static let refusedRetryAfterSeconds = 30

    static let keepAliveComment = ByteBuffer(string: ": keep-alive\n\n")

    /// The event for `revision` of `environment`: built once per revision when this server
    /// serves that revision, else a plain refetch request (a newer one follows at once).
    func event(_ environment: String, revision: Int) -> ByteBuffer {
        guard let served = authenticator.publisher.current.environments[environment], served.revision == revision else {
            return RevisionEvents.event(revision: revision, lastModified: nil, changes: nil, spread: 0)
        }
        return revisionEvents.event(for: served)
    }
}
