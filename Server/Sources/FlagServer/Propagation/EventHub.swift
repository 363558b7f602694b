import Foundation
import Synchronization

/// Fans committed revisions out to the open event streams of each environment, at most
/// ``maximumStreams`` at once in the process and ``maximumStreamsPerOwner`` per token.
public final class EventHub: Sendable {
    private struct Subscriber {
        var environment: String
        var owner: String
        var continuation: AsyncStream<Int>.Continuation
    }

    /// Why a stream was not opened: a cap is reached.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// Whether the per-owner cap (rather than the process's) was reached.
        public var perOwner: Bool
        public var limit: Int

        public var description: String {
            perOwner
                ? "this token has \(limit) event streams open already, its limit; close one or retry later"
                : "the server has \(limit) event streams open already, its limit; retry later"
        }
    }

    private let subscribers = Mutex<[UUID: Subscriber]>([:])
    /// The most streams open at once in this process.
    public let maximumStreams: Int
    /// The most streams open at once per owner (token).
    public let maximumStreamsPerOwner: Int

    public init(maximumStreams: Int = 4096, maximumStreamsPerOwner: Int = 64) {
        self.maximumStreams = maximumStreams
        self.maximumStreamsPerOwner = maximumStreamsPerOwner
    }

    /// A stream of the revisions committed to `environment` from now on, for `owner` (a token id).
    /// It ends when the consumer stops iterating or the hub finishes.
    ///
    /// - Throws: ``Refusal`` when the process or `owner` has as many streams open as allowed.
    public func subscribe(environment: String, owner: String) throws(Refusal) -> AsyncStream<Int> {
        // A slow client may miss intermediate revisions; every event tells it to refetch the
        // newest, so keeping the newest few loses nothing.
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(8))
        let id = UUID()
        let refusal = subscribers.withLock { subscribers -> Refusal? in
            if subscribers.count >= maximumStreams { return Refusal(perOwner: false, limit: maximumStreams) }
            if subscribers.values.lazy.filter({ $0.owner == owner }).count >= maximumStreamsPerOwner {
                return Refusal(perOwner: true, limit: maximumStreamsPerOwner)
            }
            subscribers[id] = Subscriber(environment: environment, owner: owner, continuation: continuation)
            return nil
        }
        if let refusal { throw refusal }
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
