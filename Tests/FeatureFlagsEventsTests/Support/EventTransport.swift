import FeatureFlags
import FeatureFlagsEvents
import FeatureFlagsRemote
import Foundation
import Synchronization

/// A transport for event delivery: answers each request with the next scripted status (the last
/// one repeats) and keeps every request it was sent.
final class EventTransport: HTTPTransport {
    enum Answer: Sendable {
        case status(Int, headers: [String: String] = [:])
        case connectionError
        /// A server that never answers: the request ends only when it is cancelled.
        case hang
        /// A server that never answers, over a connection that ignores cancellation too: the
        /// request ends only at ``EventTransport/releaseHangs()``.
        case hangIgnoringCancellation
    }

    private struct Hangs {
        var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelled: Set<Int> = []
        var next = 0
        var released = false
    }

    private let answers: Mutex<[Answer]>
    private let sent = Mutex<[RemoteHTTPRequest]>([])
    private let hangs = Mutex(Hangs())
    /// Every request as it is sent, for tests that wait for delivery's own loop.
    let requestStream: AsyncStream<RemoteHTTPRequest>
    private let continuation: AsyncStream<RemoteHTTPRequest>.Continuation

    init(_ answers: Answer...) {
        self.answers = Mutex(answers)
        (requestStream, continuation) = AsyncStream.makeStream()
    }

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        sent.withLock { $0.append(request) }
        continuation.yield(request)
        let answer = answers.withLock { answers in answers.count > 1 ? answers.removeFirst() : answers.first ?? .status(200) }
        switch answer {
        case .status(let status, let headers):
            return RemoteHTTPStreamingResponse(RemoteHTTPResponse(statusCode: status, headerFields: headers))
        case .connectionError:
            throw URLError(.cannotConnectToHost)
        case .hang:
            try await hang(ignoringCancellation: false)
            throw CancellationError()
        case .hangIgnoringCancellation:
            try await hang(ignoringCancellation: true)
            throw CancellationError()
        }
    }

    /// Requests hanging now.
    var hanging: Int { hangs.withLock { $0.waiting.count } }

    /// Ends every hanging request (and any made later) with an error.
    func releaseHangs() {
        let waiting = hangs.withLock { hangs in
            hangs.released = true
            defer { hangs.waiting = [:] }
            return Array(hangs.waiting.values)
        }
        for continuation in waiting { continuation.resume(throwing: CancellationError()) }
    }

    private func hang(ignoringCancellation: Bool) async throws {
        let id = hangs.withLock { hangs in
            defer { hangs.next += 1 }
            return hangs.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let endNow = hangs.withLock { hangs -> Bool in
                    if hangs.released || (!ignoringCancellation && hangs.cancelled.contains(id)) { return true }
                    hangs.waiting[id] = continuation
                    return false
                }
                if endNow { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            guard !ignoringCancellation else { return }
            let continuation = hangs.withLock { hangs in
                hangs.cancelled.insert(id)
                return hangs.waiting.removeValue(forKey: id)
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    var requests: [RemoteHTTPRequest] { sent.withLock { $0 } }

    /// The bodies sent, decoded.
    var batches: [FlagEventBatch] {
        requests.map { try! JSONDecoder().decode(FlagEventBatch.self, from: $0.body ?? Data()) }
    }
}
