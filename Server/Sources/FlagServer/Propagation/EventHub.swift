import Foundation
import Synchronization

/// Fans committed revisions out to the open event streams of each environment.
public final class EventHub: Sendable {
    private struct Subscriber {
        var environment: String
        var continuation: AsyncStream<Int>.Continuation
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])

    public init() {}

    /// A stream of the revisions committed to `environment` from now on. It ends when the
    /// consumer stops iterating or the hub finishes.
    public func subscribe(environment: String) -> AsyncStream<Int> {
        // A slow client may miss intermediate revisions; every event tells it to refetch the
        // newest, so keeping the newest few loses nothing.
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        subscribers.withLock { $0[id] = Subscriber(environment: environment, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `revision` to every stream of `environment`.
    public func publish(environment: String, revision: Int) {
        let targets = subscribers.withLock { $0.values.filter { $0.environment == environment }.map(\.continuation) }
        for continuation in targets { continuation.yield(revision) }
    }

    /// The number of open streams (for `/metrics` and tests).
    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Ends every stream, so that a graceful shutdown does not wait for clients.
    public func finishAll() {
        let all = subscribers.withLock { $0.values.map(\.continuation) }
        for continuation in all { continuation.finish() }
    }
}
