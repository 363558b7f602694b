import Foundation
import Synchronization

/// Fans committed revisions out to the open event streams of each environment, at most
/// ``maximumStreams`` at once in the process and ``maximumStreamsPerOwner`` per token.
///
/// A stream costs one `AsyncStream` and an entry here; keep-alives come from one timer for all
/// streams (``sendKeepAlive()``), not one per stream, so that 100,000 idle streams cost little
/// memory and little CPU.
public final class EventHub: Sendable {
    /// What a stream receives: a committed revision, or the cue to send a keep-alive comment.
    public enum Signal: Sendable, Hashable {
        case revision(Int)
        case keepAlive
    }

    private struct Registry {
        /// The open streams, by environment, then by id.
        var streams: [String: [Int: AsyncStream<Signal>.Continuation]] = [:]
        var perOwner: [String: Int] = [:]
        var count = 0
        var nextID = 0

        mutating func remove(id: Int, environment: String, owner: String) {
            guard streams[environment]?.removeValue(forKey: id) != nil else { return }
            if streams[environment]?.isEmpty == true { streams[environment] = nil }
            count -= 1
            let remaining = (perOwner[owner] ?? 1) - 1
            perOwner[owner] = remaining > 0 ? remaining : nil
        }
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

    private let registry = Mutex(Registry())
    /// The most streams open at once in this process.
    public let maximumStreams: Int
    /// The most streams open at once per owner (token).
    public let maximumStreamsPerOwner: Int

    public init(maximumStreams: Int = 100_000, maximumStreamsPerOwner: Int = 64) {
        self.maximumStreams = maximumStreams
        self.maximumStreamsPerOwner = maximumStreamsPerOwner
    }

    /// A stream of the revisions committed to `environment` from now on, and of keep-alive
    /// cues, for `owner` (a token id). It ends when the consumer stops iterating or the hub
    /// finishes.
    ///
    /// - Throws: ``Refusal`` when the process or `owner` has as many streams open as allowed.
    public func subscribe(environment: String, owner: String) throws(Refusal) -> AsyncStream<Signal> {
        // A slow client may miss intermediate revisions; every event tells it to refetch the
        // newest, so keeping the newest few loses nothing.
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(8))
        let result = registry.withLock { registry -> Result<Int, Refusal> in
            if registry.count >= maximumStreams { return .failure(Refusal(perOwner: false, limit: maximumStreams)) }
            let owned = registry.perOwner[owner] ?? 0
            if owned >= maximumStreamsPerOwner { return .failure(Refusal(perOwner: true, limit: maximumStreamsPerOwner)) }
            let id = registry.nextID
            registry.nextID += 1
            registry.streams[environment, default: [:]][id] = continuation
            registry.perOwner[owner] = owned + 1
            registry.count += 1
            return .success(id)
        }
        let id: Int
        switch result {
        case .success(let value): id = value
        case .failure(let refusal): throw refusal
        }
        continuation.onTermination = { [weak self] _ in
            self?.registry.withLock { $0.remove(id: id, environment: environment, owner: owner) }
        }
        return stream
    }

    /// Sends `revision` to every stream of `environment`.
    public func publish(environment: String, revision: Int) {
        let targets = registry.withLock { $0.streams[environment].map { Array($0.values) } ?? [] }
        for continuation in targets { continuation.yield(.revision(revision)) }
    }

    /// Tells every open stream to send a keep-alive comment.
    public func sendKeepAlive() {
        for continuation in allContinuations() { continuation.yield(.keepAlive) }
    }

    /// The number of open streams (for `/metrics` and tests).
    public var subscriberCount: Int { registry.withLock { $0.count } }

    /// Ends every stream, so that a graceful shutdown does not wait for clients. The streams leave
    /// the hub at once, so calling it again (every stream's shutdown handler does) costs nothing.
    public func finishAll() {
        let all = registry.withLock { registry in
            let all = registry.streams.values.flatMap(\.values)
            registry.streams = [:]
            registry.perOwner = [:]
            registry.count = 0
            return all
        }
        for continuation in all { continuation.finish() }
    }

    private func allContinuations() -> [AsyncStream<Signal>.Continuation] {
        registry.withLock { $0.streams.values.flatMap(\.values) }
    }
}
