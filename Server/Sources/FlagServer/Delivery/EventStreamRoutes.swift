import FlagEvaluation
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
            // Subscribe before reading the revision, so no write falls between the two.
            let signals: AsyncStream<EventHub.Signal>
            do {
                // Counted per client, like the rate limit: a fleet of phones shares one token.
                signals = try events.subscribe(
                    environment: environment.key, owner: authenticator.rateLimitKey(token, request: request))
            } catch let error as EventHub.Refusal {
                throw APIError(
                    error.perOwner ? .tooManyRequests : .serviceUnavailable, code: "too_many_streams",
                    message: error.description, headers: [.retryAfter: String(Self.refusedRetryAfterSeconds)])
            }
            let served = authenticator.publisher.current.environments[environment.key] ?? environment
            revisionEvents.observe(served)
            let current = served.revision
            let lastSeen = request.headers[.lastEventID].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let missed = request.headers[.lastEventID] != nil && lastSeen != current
            // The connection's own task writes the stream: no task, timer or buffer per stream
            // beyond the subscription. Keep-alives come through the hub (`EventStreamService`);
            // a closed connection ends the loop at the next write.
            let body = ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ": environment \(environment.key) at revision \(current)\nretry: 2000\n\n"))
                var sent = current
                if missed { try await writer.write(event(environment.key, revision: current)) }
                // The server waits for open requests when it shuts down gracefully, and it is shut
                // down before the services (`EventStreamService`): end the streams then, or
                // shutdown would wait for clients that never disconnect.
                try await withGracefulShutdownHandler {
                    for await signal in signals {
                        switch signal {
                        case .revision(let revision) where revision > sent:
                            sent = revision
                            try await writer.write(event(environment.key, revision: revision))
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
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: body)
        }
    }

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
