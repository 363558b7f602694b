import FlagEvaluation
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import Synchronization

/// `POST /ofrep/v1/ingestion`: the exposures, evaluation summaries and tracked events an app sends
/// (one `FlagEventBatch`, version 1), with a client or server token of one environment.
///
/// In order, each step cheaper than the next: the token (401, 403, 429 past the client's rate
/// limit, shared with delivery); a declared `Content-Length` over the limit (413); a place in the
/// queue's byte budget (503 with `Retry-After` when full, before the body is read); the body,
/// read up to ``EventIngestionOptions/maximumBatchBytes`` (413); a decoding slot
/// (``EventIngestionOptions/concurrentDecodes``, so decoding never takes every core); the batch
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
        guard let reservation = queue.reserve(bytes: min(declared ?? options.maximumBatchBytes, options.maximumBatchBytes)) else {
            throw shed("its queue holds as many bytes as it may")
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
        await decodes.acquire()
        let decoded = Result { () throws(APIError) -> EventBatch in
            try EventBatchDecoder.decode(body.readableBytesView, environment: environment, receivedAt: receivedAt, options: options)
        }
        decodes.release()
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

/// A counting semaphore for async code: at most `count` holders at once, the others wait in
/// order. Waiting is not cancellable (a holder keeps its slot only for one batch's decoding).
final class DecodeSlots: Sendable {
    private struct State: ~Copyable {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(available: max(1, count)))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.available > 0 else {
                    state.waiters.append(continuation)
                    return false
                }
                state.available -= 1
                return true
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives the slot to the longest waiter, or back to the pool.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

extension HTTPField.Name {
    static let idempotencyKey = HTTPField.Name("Idempotency-Key")!
}
