import FlagEvaluation
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
/// limit, shared with delivery); a declared `Content-Length` over the limit (413); a place in the
/// queue's byte budget (503 with `Retry-After` when full, or while the ingest's work took more
/// than ``EventIngestionOptions/maximumIngestShare`` of the last second; before the body is
/// read); the body, read up to ``EventIngestionOptions/maximumBatchBytes`` (413); a decoding
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
        let reservation: EventIngestionQueue.Reservation
        switch queue.admit(bytes: min(declared ?? options.maximumBatchBytes, options.maximumBatchBytes)) {
        case .success(let granted):
            reservation = granted
        case .failure(.bytes):
            throw shed("its queue holds as many bytes as it may")
        case .failure(.share(let share)):
            let window = options.ingestShareWindow.components
            throw shed(
                "ingesting took \(Int((share * 100).rounded())) % of the last \(window.seconds * 1000 + window.attoseconds / 1_000_000_000_000_000) ms, more than the \(Int((options.maximumIngestShare * 100).rounded())) % it may")
        }
        defer { queue.release(reservation) }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: options.maximumBatchBytes)
        } catch is NIOTooManyBytesError {
            metrics.refused(.tooLarge)
            throw tooLarge()
        }
        let receivedAt = Int64((now().timeIntervalSince1970 * 1000).rounded())
        let decoded = await decodes.run { [options, queue] in
            // Counted from when a thread takes it: waiting for one is not work.
            let work = queue.beginWork()
            defer { queue.endWork(work) }
            return Result { () throws(APIError) -> EventBatch in
                try EventBatchDecoder.decode(body.readableBytesView, environment: environment, receivedAt: receivedAt, options: options)
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
        guard let outcome = await queue.commit(batch) else {
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
}
