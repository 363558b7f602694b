import FeatureFlagsRemote
import Foundation
import Synchronization

/// An in-process transport answering 200 with a body produced chunk by chunk, only when the
/// reader asks for the next one, and counting the chunks it was asked for.
final class StreamingTransport: HTTPTransport {
    let chunkSize: Int
    let chunkCount: Int
    let headers: [String: String]
    private let pulled = Mutex(0)
    private let requests = Mutex(0)

    /// `chunkCount` chunks of `chunkSize` spaces (`Int.max`: an endless body).
    init(chunkSize: Int, chunkCount: Int = .max, headers: [String: String] = ["Content-Type": "application/json"]) {
        self.chunkSize = chunkSize
        self.chunkCount = chunkCount
        self.headers = headers
    }

    /// The chunks the reader asked for, over all requests.
    var chunksPulled: Int { pulled.withLock { $0 } }
    var requestCount: Int { requests.withLock { $0 } }

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        requests.withLock { $0 += 1 }
        let chunk = Data(repeating: 0x20, count: chunkSize)
        let produced = Counter()
        let body = AsyncThrowingStream<Data, any Error> { [self] in
            guard produced.next() <= chunkCount else { return nil }
            pulled.withLock { $0 += 1 }
            return chunk
        }
        return RemoteHTTPStreamingResponse(statusCode: 200, headerFields: headers, body: body)
    }
}

/// Counts up from 1.
private final class Counter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { count in
            count += 1
            return count
        }
    }
}
