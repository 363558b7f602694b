import Foundation
import Synchronization

/// Fans committed revisions out to the open event streams of each environment, at most
/// ``maximumStreams`` at once in the process and ``maximumStreamsPerOwner`` per owner (client).
///
/// A stream is an ``EventStreamSink`` and an entry here, for as long as its ``Subscription``
/// exists; keep-alives come from one timer for all streams (``sendKeepAlive()``), not one per
/// stream, so that 100,000 idle streams cost little memory and little CPU. The server's streams
/// are sinks that write to their connection from its event loop, with no task per stream
/// (`EventStreamFront`, which ``offer(_:)``s a sink for each request that opens a stream).
public final class EventHub: Sendable {
    /// What a stream receives: a committed revision, or the cue to send a keep-alive comment.
    public enum Signal: Sendable, Hashable {
        /// A write committed this revision of the stream's environment.
        case revision(Int)
        /// Nothing happened for a while: send a keep-alive comment so that proxies keep the stream open.
        case keepAlive
    }

    private struct Registry {
        /// The open streams, by environment, then by id.
        var streams: [String: [Int: any EventStreamSink]] = [:]
        var perOwner: [String: Int] = [:]
        var count = 0
        var nextID = 0
        /// Sinks offered for streams not opened yet, by id.
        var offers: [Int: any EventStreamSink] = [:]

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
        /// The cap that was reached.
        public var limit: Int

        /// What was reached, and whether to close a stream or retry later.
        public var description: String {
            perOwner
                ? "this client has \(limit) event streams open already, its limit; close one or retry later"
                : "the server has \(limit) event streams open already, its limit; retry later"
        }
    }

    /// A stream's place in the hub: its sink receives signals until the subscription goes away
    /// (or ``EventHub/finishAll()``), and the stream then leaves the hub.
    public final class Subscription: Sendable {
        let id: Int
        let environment: String
        let owner: String
        let hub: EventHub

        fileprivate init(id: Int, environment: String, owner: String, hub: EventHub) {
            self.id = id
            self.environment = environment
            self.owner = owner
            self.hub = hub
        }

        deinit {
            let (id, environment, owner) = (id, environment, owner)
            hub.registry.withLock { $0.remove(id: id, environment: environment, owner: owner) }
        }
    }

    private let registry = Mutex(Registry())
    /// The most streams open at once in this process.
    public let maximumStreams: Int
    /// The most streams open at once per owner.
    public let maximumStreamsPerOwner: Int

    /// A hub capping streams at `maximumStreams` in the process and `maximumStreamsPerOwner` per owner.
    public init(maximumStreams: Int = 100_000, maximumStreamsPerOwner: Int = 64) {
        self.maximumStreams = maximumStreams
        self.maximumStreamsPerOwner = maximumStreamsPerOwner
    }

    /// Sends `sink` the revisions committed to `environment` from now on, and keep-alive cues,
    /// for `owner` (a client), until the subscription goes away or the hub finishes.
    ///
    /// - Throws: ``Refusal`` when the process or `owner` has as many streams open as allowed.
    public func subscribe(environment: String, owner: String, sink: any EventStreamSink) throws(Refusal) -> Subscription {
        let result = registry.withLock { registry -> Result<Int, Refusal> in
            if registry.count >= maximumStreams { return .failure(Refusal(perOwner: false, limit: maximumStreams)) }
            let owned = registry.perOwner[owner] ?? 0
            if owned >= maximumStreamsPerOwner { return .failure(Refusal(perOwner: true, limit: maximumStreamsPerOwner)) }
            let id = registry.nextID
            registry.nextID += 1
            registry.streams[environment, default: [:]][id] = sink
            registry.perOwner[owner] = owned + 1
            registry.count += 1
            return .success(id)
        }
        switch result {
        case .success(let id): return Subscription(id: id, environment: environment, owner: owner, hub: self)
        case .failure(let refusal): throw refusal
        }
    }

    /// A stream of the revisions committed to `environment` from now on, and of keep-alive
    /// cues, for `owner`. It ends when the consumer stops iterating or the hub finishes.
    ///
    /// - Throws: ``Refusal`` when the process or `owner` has as many streams open as allowed.
    public func subscribe(environment: String, owner: String) throws(Refusal) -> AsyncStream<Signal> {
        // A slow client may miss intermediate revisions; every event tells it to refetch the
        // newest, so keeping the newest few loses nothing.
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .bufferingNewest(8))
        let subscription = try subscribe(environment: environment, owner: owner, sink: ContinuationSink(continuation: continuation))
        continuation.onTermination = { _ in withExtendedLifetime(subscription) {} }
        return stream
    }

    /// Keeps `sink` for the stream a request may open; the id to ``take(offer:)`` it with.
    public func offer(_ sink: any EventStreamSink) -> Int {
        registry.withLock { registry in
            let id = registry.nextID
            registry.nextID += 1
            registry.offers[id] = sink
            return id
        }
    }

    /// The sink offered as `id`, now no longer offered; `nil` if it was taken or withdrawn.
    public func take(offer id: Int) -> (any EventStreamSink)? {
        registry.withLock { $0.offers.removeValue(forKey: id) }
    }

    /// Withdraws the sink offered as `id`, if it was not taken.
    public func withdraw(offer id: Int) {
        _ = take(offer: id)
    }

    /// Sends `revision` to every stream of `environment`.
    public func publish(environment: String, revision: Int) {
        let targets = registry.withLock { $0.streams[environment].map { Array($0.values) } ?? [] }
        for sink in targets { sink.send(.revision(revision)) }
    }

    /// Tells every open stream to send a keep-alive comment.
    public func sendKeepAlive() {
        let all = registry.withLock { $0.streams.values.flatMap(\.values) }
        for sink in all { sink.send(.keepAlive) }
    }

    /// The number of open streams (for `/metrics` and tests).
    public var subscriberCount: Int { registry.withLock { $0.count } }

    /// Ends every stream, so that a graceful shutdown does not wait for clients. The streams leave
    /// the hub at once, so calling it again costs nothing.
    public func finishAll() {
        let all = registry.withLock { registry in
            let all = registry.streams.values.flatMap(\.values)
            registry.streams = [:]
            registry.perOwner = [:]
            registry.count = 0
            return all
        }
        for sink in all { sink.finish() }
    }
}

/// Where an event stream's signals go, from any thread: it must not block.
public protocol EventStreamSink: Sendable {
    /// Delivers `signal` to the stream without blocking.
    func send(_ signal: EventHub.Signal)
    /// The hub finished: end the stream.
    func finish()
}

/// A stream read as an `AsyncStream`.
private struct ContinuationSink: EventStreamSink {
    let continuation: AsyncStream<EventHub.Signal>.Continuation

    func send(_ signal: EventHub.Signal) { continuation.yield(signal) }
    func finish() { continuation.finish() }
}
