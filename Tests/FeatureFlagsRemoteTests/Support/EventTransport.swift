import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Synchronization

/// A transport for event delivery: answers each request with the next scripted status (the last
/// one repeats) and keeps every request it was sent.
final class EventTransport: HTTPTransport {
    enum Answer: Sendable {
        case status(Int, headers: [String: String] = [:])
        case connectionError
    }

    private let answers: Mutex<[Answer]>
    private let sent = Mutex<[RemoteHTTPRequest]>([])
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
            throw URLError(.notConnectedToInternet)
        }
    }

    var requests: [RemoteHTTPRequest] { sent.withLock { $0 } }

    /// The bodies sent, decoded.
    var batches: [FlagEventBatch] {
        requests.map { try! JSONDecoder().decode(FlagEventBatch.self, from: $0.body ?? Data()) }
    }
}
