@testable import FlagServer
@testable import FlagServerModel

/// A ``FlagEventStore`` in memory that records every call to ``ingest(_:)``: it stores batches
/// whole (one id per environment once), and can be told to fail, or to hold each call until
/// released, so tests see what reaches a store and when.
actor RecordingEventStore: FlagEventStore {
    /// Every group ``ingest(_:)`` received, in order (failed and held ones included).
    private(set) var calls: [[EventBatch]] = []
    /// The batches stored, in order.
    private(set) var stored: [EventBatch] = []
    private var ids: Set<String> = []
    /// The error the next calls throw, while set.
    private var failure: StoreError?
    /// Whether calls wait for ``release()``.
    private var holding = false
    private var held: [CheckedContinuation<Void, Never>] = []
    /// Waiters for a number of calls.
    private var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private(set) var deletions: [(rawBefore: Int64, hourlyBefore: Int64)] = []

    func fail(with error: StoreError?) { failure = error }

    /// From now on every call waits for ``release()`` before it stores (or fails).
    func hold() { holding = true }

    /// Lets every held call go on, and stops holding.
    func release() {
        holding = false
        let waiting = held
        held = []
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once ``ingest(_:)`` was called `count` times in all.
    func waitForCalls(_ count: Int) async {
        if calls.count >= count { return }
        await withCheckedContinuation { callWaiters.append((count, $0)) }
    }

    /// Returns once ``deleteExpired(rawBefore:hourlyBefore:)`` was called.
    func waitForDeletion() async {
        if !deletions.isEmpty { return }
        await withCheckedContinuation { deletionWaiters.append($0) }
    }

    private var deletionWaiters: [CheckedContinuation<Void, Never>] = []

    func migrate() async throws(StoreError) {}

    func ingest(_ batches: [EventBatch]) async throws(StoreError) -> [Bool] {
        calls.append(batches)
        let ready = callWaiters.filter { $0.count <= calls.count }
        callWaiters.removeAll { $0.count <= calls.count }
        for waiter in ready { waiter.continuation.resume() }
        if holding { await withCheckedContinuation { held.append($0) } }
        if let failure { throw failure }
        return batches.map { batch in
            guard ids.insert(batch.environment + "\u{0}" + batch.id).inserted else { return false }
            stored.append(batch)
            return true
        }
    }

    func rollups(
        environment: String, flag: String?, granularity: RollupGranularity, from: Int64, to: Int64
    ) async throws(StoreError) -> [EvaluationRollup] { [] }

    func unitCounts(environment: String, flag: String?, from: Int64, to: Int64) async throws(StoreError) -> [UnitCount] { [] }

    func lastEvaluated(environment: String) async throws(StoreError) -> [String: Int64] { [:] }

    func trackedCounts(environment: String, from: Int64, to: Int64) async throws(StoreError) -> [TrackedCount] { [] }

    func trackedEvents(
        environment: String, name: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [EventBatch.Tracked] { [] }

    func exposures(
        environment: String, flag: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [StoredExposure] { [] }

    func deleteExpired(rawBefore time: Int64, hourlyBefore: Int64) async throws(StoreError) -> Int {
        deletions.append((time, hourlyBefore))
        let waiting = deletionWaiters
        deletionWaiters = []
        for waiter in waiting { waiter.resume() }
        if let failure { throw failure }
        return 0
    }

    func close() async {}
}
