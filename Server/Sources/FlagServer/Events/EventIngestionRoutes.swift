import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import Prometheus
import Synchronization

/// `POST /ofrep/v1/ingestion`: the exposures, evaluation summaries and tracked events an app sends
/// (one `FlagEventBatch`, version 1), with a client or server token of one environment.
///
/// In order, each step cheaper than the next: the token (401, 403, 429 past the client's rate
/// limit, shared with delivery); a declared `Content-Length` over the limit (413); a
/// `Content-Encoding` other than `identity` (415: bodies are read as sent); admission (503 with
/// `Retry-After` while the queue's byte budget is spent, or while the ingest's work used more
/// than ``EventIngestionOptions/maximumIngestShare`` of a core's processor time over the last
/// second; 429 with `Retry-After`
/// while the token's requests hold ``EventIngestionOptions/maximumQueuedBytesPerToken``; before
/// the body is read, and held unread until the client's last `Retry-After`, at most 1 s, when it
/// came back before it, ``RefusalHold``); the body, read up to ``EventIngestionOptions/maximumBatchBytes`` (413),
/// each piece held in the budgets as it arrives (503 or 429 when one is spent), the whole within
/// ``EventIngestionOptions/bodyReadTimeout`` (408, and the connection closed); a decoding
/// thread (``EventIngestionOptions/concurrentDecodes`` of them, at a lower priority than delivery's,
/// so decoding never takes every core); the batch
/// checked (400, 413, 422); `Idempotency-Key`, when sent, equal to the batch id (422); a place in
/// the queue's event budget (503); then the wait for the group's commit: 202
/// `{"accepted": n, "duplicate": false}` once stored, `"duplicate": true` for a batch id stored
/// before (nothing is counted twice), 503 with `Retry-After` when the store failed (nothing of the
/// batch was stored).
struct EventIngestionRoutes: Sendable {
    static let path = "/ofrep/v1/ingestion"

    let authenticator: RequestAuthenticator
    let queue: EventIngestionQueue
    let metrics: EventMetrics
    let decodes: DecodeSlots
    let now: @Sendable () -> Date
    /// The longest pause the connection allows between two pieces of a body
    /// (``ServerLimits/bodyTimeout``): a request held by ``RefusalHold`` keeps well within it.
    var connectionBodyTimeout: Duration = ServerLimits().bodyTimeout

    var options: EventIngestionOptions { queue.options }

    /// The bulk evaluation's `eventIngestion` member: where apps send events, and the bounds of a
    /// batch (`maxBatchBytes`, `maxEvents`) so that they split theirs before sending.
    static func advertisement(_ options: EventIngestionOptions) -> JSONValue {
        [
            "endpoint": ["requestUri": .string(path)], "maxBatchBytes": .int(options.maximumBatchBytes),
            "maxEvents": .int(options.maximumEvents),
        ]
    }

    func register(on router: Router<BasicRequestContext>) {
        router.post("/ofrep/v1/ingestion") { request, _ in
            try await ingest(request)
        }
    }

    struct Accepted: Encodable {
        /// The events of the batch.
        var accepted: Int
        /// Whether the batch id was stored before (its events were not counted again).
        var duplicate: Bool
    }

    func shed(_ what: String) -> APIError {
        metrics.shed.increment()
        return APIError(
            .serviceUnavailable, code: "unavailable",
            message: "the server is ingesting more events than it can store now (\(what)); nothing was stored, retry after \(options.retryAfterSeconds) s",
            headers: [.retryAfter: String(options.retryAfterSeconds)])
    }

    /// The answer to a request (or a piece of its body) the queue did not admit.
    func refused(_ refusal: EventIngestionQueue.Refusal, token: String) -> APIError {
        switch refusal {
        case .bytes:
            return shed("its queue holds as many bytes as it may")
        case .tokenBytes:
            metrics.refused(.tokenBytes)
            return APIError(
                .tooManyRequests, code: "rate_limited",
                message: "the uploads of token \"\(token)\" hold \(options.maximumQueuedBytesPerToken) bytes, as many as one token may at once; nothing was stored, retry after \(options.retryAfterSeconds) s",
                headers: [.retryAfter: String(options.retryAfterSeconds)])
        case .share(let share):
            let window = options.ingestShareWindow.components
            return shed(
                "ingesting used \(Int((share * 100).rounded())) % of a core over the last \(window.seconds * 1000 + window.attoseconds / 1_000_000_000_000_000) ms, more than the \(Int((options.maximumIngestShare * 100).rounded())) % it may")
        }
    }

    /// The answer to a request refused before its body was read whole (at admission, or when a
    /// piece found no room), given when `client` may come back: at once, unless it came before
    /// the `Retry-After` it was last told; then at that time (the rest of its body unread), so
    /// that a client ignoring `Retry-After` sends one request per connection and wait, and each
    /// costs the server one refusal.
    func refusedUnread(_ refusal: EventIngestionQueue.Refusal, token: String, client: String) async -> APIError {
        let refusals = queue.refusals
        if let deadline = refusals.hold(client, atMost: holdBound) {
            try? await Task.sleep(until: deadline, clock: .continuous)
            refusals.release()
        }
        refusals.told(client, retryAfter: .seconds(options.retryAfterSeconds))
        return refused(refusal, token: token)
    }

    /// The longest a refused request is held: an eighth of the connection's body pause, the one
    /// body deadline that keeps running while it waits (the body's read ended, or has not begun),
    /// so that the hold never costs it its answer: a client that sent part of a body is not closed
    /// for a pause the server made.
    var holdBound: Duration { connectionBodyTimeout / 8 }

    func ingest(_ request: Request) async throws -> Response {
        let token = try authenticator.authorize(request, role: .client, environment: nil)
        guard token.role < .admin else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "token \"\(token.id)\" is an admin token: events are sent with a client or server token of one environment, the one the app evaluates with")
        }
        let environment = try authenticator.environment(of: token).key
        let declared = request.headers[.contentLength].flatMap { Int($0) }
        if let declared, declared > options.maximumBatchBytes {
            metrics.refused(.tooLarge)
            throw tooLarge()
        }
        if let encoding = request.headers[.contentEncoding], !Self.isIdentity(encoding) {
            metrics.refused(.encoding)
            throw APIError(
                .unsupportedMediaType, code: "unsupported_encoding",
                message: "the body came with Content-Encoding \"\(encoding.prefix(64))\"; this server reads event batches as sent: send the JSON without a Content-Encoding (or with identity)",
                problems: [ValidationError(key: nil, field: "Content-Encoding", problem: "\"\(encoding.prefix(64))\" is not read; send identity")],
                headers: [.acceptEncoding: "identity"])
        }
        let priority = try Self.priority(request.headers[.flagEventPriority])
        var reservation: EventIngestionQueue.Reservation
        let client = authenticator.rateLimitKey(token, request: request)
        switch queue.admit(token: token.id, priority: priority, declared: declared ?? 0) {
        case .success(let granted): reservation = granted
        case .failure(let refusal):
            throw await refusedUnread(refusal, token: token.id, client: client)
        }
        // Holds what the body's read took, however it ended (the read gives back what it held
        // when it fails).
        defer { queue.release(reservation) }
        let body: ByteBuffer
        switch try await receive(request.body, reservation: reservation) {
        case .body(let received, let held):
            body = received
            reservation = held
        case .tooLarge:
            metrics.refused(.tooLarge)
            throw tooLarge()
        case .refused(let refusal):
            throw await refusedUnread(refusal, token: token.id, client: client)
        case .timedOut:
            metrics.refused(.timedOut)
            let timeout = options.bodyReadTimeout.components
            throw APIError(
                .requestTimeout, code: "timeout",
                message: "the request body did not arrive within \(timeout.seconds * 1000 + timeout.attoseconds / 1_000_000_000_000_000) ms; nothing was stored, send it again",
                headers: [.connection: "close"])
        }
        let receivedAt = Int64((now().timeIntervalSince1970 * 1000).rounded())
        let decoded = await decodes.run { [options, queue] in
            // The processor time of the thread that decodes: waiting for one is not work.
            queue.measuringWork {
                Result { () throws(APIError) -> EventBatch in
                    try EventBatchDecoder.decode(body.readableBytesView, environment: environment, receivedAt: receivedAt, options: options)
                }
            }
        }
        let batch: EventBatch
        switch decoded {
        case .success(let value):
            batch = value
        case .failure(let error):
            switch error.status {
            case .badRequest: metrics.refused(.malformed)
            case .contentTooLarge: metrics.refused(.tooLarge)
            default: metrics.refused(.invalid)
            }
            throw error
        }
        if let key = request.headers[.idempotencyKey], key != batch.id {
            metrics.refused(.idempotencyKey)
            throw APIError(
                .unprocessableContent, code: "invalid",
                message: "the Idempotency-Key header (\"\(key.prefix(64))\") is not the batch's batchId (\"\(batch.id)\"); send the batch id as the key, or no key",
                problems: [ValidationError(key: nil, field: "batchId", problem: "differs from the Idempotency-Key header")])
        }
        if priority == .health, let offending = batch.notSessionHealth {
            metrics.refused(.invalid)
            throw APIError(
                .unprocessableContent, code: "invalid",
                message: "the batch was sent with Flag-Event-Priority: health but carries \(offending); a health batch carries only tracked events named \(EventBatch.sessionHealthEventNames.sorted().joined(separator: ", ")): send the others without the header",
                problems: [ValidationError(key: nil, field: "Flag-Event-Priority", problem: "the batch carries \(offending)")])
        }
        guard let outcome = await queue.commit(batch, priority: priority) else {
            throw shed("its queue holds as many events as it may")
        }
        switch outcome {
        case .stored(let new):
            return JSONBody.response(Accepted(accepted: batch.eventCount, duplicate: !new), status: .accepted)
        case .failed(let error):
            throw APIError(
                .serviceUnavailable, code: "unavailable",
                message: "the events could not be stored (\(Self.reason(error))); nothing of the batch was stored, retry after \(options.retryAfterSeconds) s",
                headers: [.retryAfter: String(options.retryAfterSeconds)])
        }
    }

    /// How reading a body ended.
    enum Reading: Sendable {
        /// Read whole; the reservation holds its bytes.
        case body(ByteBuffer, EventIngestionQueue.Reservation)
        /// Past ``EventIngestionOptions/maximumBatchBytes``.
        case tooLarge
        /// A piece the queue's budgets had no room for.
        case refused(EventIngestionQueue.Refusal)
        /// Not whole within ``EventIngestionOptions/bodyReadTimeout``.
        case timedOut
    }

    /// Reads `body`, holding each piece in the queue's budgets (under `reservation`) as it
    /// arrives, for at most ``EventIngestionOptions/bodyReadTimeout``. Whatever does not end in
    /// ``Reading/body(_:_:)`` holds nothing: the read gives back what it held before it returns.
    ///
    /// A read past its time is cancelled, which ends the request's stream of body parts: the
    /// connection closes after the answer, instead of waiting for a body that trickles.
    ///
    /// - Throws: what reading the body threw (the connection failed).
    func receive(_ body: RequestBody, reservation: EventIngestionQueue.Reservation) async throws -> Reading {
        let timeout = options.bodyReadTimeout
        return try await withThrowingTaskGroup(of: Reading.self) { [queue, options] group in
            group.addTask {
                var held = reservation
                // Grown as pieces arrive: a declared length is no reason to allocate ahead of them.
                var buffer = ByteBuffer()
                do {
                    for try await piece in body {
                        guard buffer.readableBytes + piece.readableBytes <= options.maximumBatchBytes else {
                            queue.release(held)
                            return .tooLarge
                        }
                        if let refusal = queue.hold(piece.readableBytes, in: &held) {
                            queue.release(held)
                            return .refused(refusal)
                        }
                        buffer.writeImmutableBuffer(piece)
                    }
                } catch {
                    queue.release(held)
                    throw error
                }
                return .body(buffer, held)
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            // The first to end decides; the other is cancelled (and awaited) before this returns.
            let first = try await group.next() ?? .timedOut
            group.cancelAll()
            return first
        }
    }

    /// The priority a `Flag-Event-Priority` header asks for: `health` (session health events
    /// alone), or none.
    static func priority(_ header: String?) throws(APIError) -> EventIngestionQueue.Priority {
        guard let header else { return .normal }
        guard header.trimmingCharacters(in: .whitespaces).lowercased() == "health" else {
            throw APIError(
                .unprocessableContent, code: "invalid",
                message: "Flag-Event-Priority is \"\(header.prefix(64))\"; the one priority there is, health, is for batches of session health events alone: send health, or no header",
                problems: [ValidationError(key: nil, field: "Flag-Event-Priority", problem: "\"\(header.prefix(64))\" is not health")])
        }
        return .health
    }

    /// Whether a `Content-Encoding` value leaves the body as sent (`identity`, in any case).
    static func isIdentity(_ encoding: String) -> Bool {
        encoding.split(separator: ",").allSatisfy { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" }
    }

    func tooLarge() -> APIError {
        APIError(
            .contentTooLarge, code: "too_large",
            message: "the request body is larger than the limit of \(options.maximumBatchBytes) bytes: split the batch")
    }

    /// What a client may read of a store failure: its kind, not the database's words.
    static func reason(_ error: StoreError) -> String {
        switch error {
        case .unavailable: "the event store is unavailable"
        default: "the event store failed"
        }
    }
}

/// Decodes bodies on threads of their own, at most `count` at once (the others wait in order),
/// at nice value `niceness` (``IngestThreads``): decoding never runs on the threads that serve
/// delivery, and yields the cores to them when both want them.
final class DecodeSlots: Sendable {
    private let pool: NIOThreadPool
    let niceness: Int32

    init(count: Int, niceness: Int32 = 0) {
        pool = NIOThreadPool(numberOfThreads: max(1, count))
        pool.start()
        self.niceness = niceness
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// `work` on one of the threads, once one is free.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        let niceness = niceness
        do {
            return try await pool.runIfActive {
                // Set on every run: the pool may hold several threads, and this costs one system call.
                IngestThreads.setCurrentThreadNiceness(niceness)
                return work()
            }
        } catch {
            // The pool shut down (the server is stopping): decode here.
            return work()
        }
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
    static let flagEventPriority = HTTPField.Name("Flag-Event-Priority")!
}
