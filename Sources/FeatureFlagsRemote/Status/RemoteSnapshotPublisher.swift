import FeatureFlags
import Foundation

/// The loader's subscribers: snapshot and status streams (the current one first, then one per
/// change) and the stream of background values for the manager, which keeps values produced
/// while nobody listened for the next subscriber.
///
/// The loader calls it while holding its state lock, so changes reach subscribers in the order
/// they happened; it never calls back into the loader.
final class RemoteSnapshotPublisher: Sendable {
    private struct Subscribers {
        var values: [UInt64: AsyncStream<RemoteFlagValues>.Continuation] = [:]
        var snapshots: [UInt64: AsyncStream<RemoteConfigurationSnapshot>.Continuation] = [:]
        var statuses: [UInt64: AsyncStream<RemoteStatus>.Continuation] = [:]
        var nextID: UInt64 = 0
        /// Background values produced while nobody listened (between `loadFlags()` returning
        /// and the manager subscribing), handed to the next subscriber.
        var undelivered: RemoteFlagValues?

        mutating func makeID() -> UInt64 {
            defer { nextID += 1 }
            return nextID
        }
    }

    private let subscribers = Locked(Subscribers())

    /// `current`, then every snapshot passed to ``changed(_:statusChanged:)``; slow consumers
    /// see the newest.
    func snapshots(current: RemoteConfigurationSnapshot) -> AsyncStream<RemoteConfigurationSnapshot> {
        subscribe(\.snapshots, current: current, bufferingNewest: 1)
    }

    /// `current`, then every changed status.
    func statuses(current: RemoteStatus) -> AsyncStream<RemoteStatus> {
        subscribe(\.statuses, current: current, bufferingNewest: 8)
    }

    /// A stream that starts with `current` and is registered in `list` until its consumer goes away.
    private func subscribe<Element: Sendable>(
        _ list: any WritableKeyPath<Subscribers, [UInt64: AsyncStream<Element>.Continuation]> & Sendable,
        current: Element, bufferingNewest limit: Int
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(limit))
        let id = subscribers.withLock { subscribers in
            let id = subscribers.makeID()
            subscribers[keyPath: list][id] = continuation
            continuation.yield(current)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0[keyPath: list].removeValue(forKey: id) }
        }
        return stream
    }

    /// Background values: any undelivered ones first, then each ``publish(_:)``.
    func values() -> AsyncStream<RemoteFlagValues> {
        let (stream, continuation) = AsyncStream.makeStream(of: RemoteFlagValues.self, bufferingPolicy: .bufferingNewest(1))
        let id = subscribers.withLock { subscribers in
            let id = subscribers.makeID()
            subscribers.values[id] = continuation
            if let undelivered = subscribers.undelivered {
                subscribers.undelivered = nil
                continuation.yield(undelivered)
            }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.values.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands background values to the value subscribers, or keeps them for the next one.
    func publish(_ values: RemoteFlagValues) {
        subscribers.withLock { subscribers in
            if subscribers.values.isEmpty {
                subscribers.undelivered = values
            } else {
                subscribers.undelivered = nil
                for continuation in subscribers.values.values { continuation.yield(values) }
            }
        }
    }

    /// Forgets undelivered values (a caller received newer ones directly).
    func discardUndelivered() {
        subscribers.withLock { $0.undelivered = nil }
    }

    /// Tells snapshot subscribers, and status subscribers when the status changed.
    func changed(_ snapshot: RemoteConfigurationSnapshot, statusChanged: Bool) {
        subscribers.withLock { subscribers in
            for continuation in subscribers.snapshots.values { continuation.yield(snapshot) }
            guard statusChanged else { return }
            for continuation in subscribers.statuses.values { continuation.yield(snapshot.status) }
        }
    }

    /// Ends every stream.
    func finishAll() {
        let continuations = subscribers.withLock { subscribers in
            (Array(subscribers.values.values), Array(subscribers.snapshots.values), Array(subscribers.statuses.values))
        }
        for continuation in continuations.0 { continuation.finish() }
        for continuation in continuations.1 { continuation.finish() }
        for continuation in continuations.2 { continuation.finish() }
    }
}
