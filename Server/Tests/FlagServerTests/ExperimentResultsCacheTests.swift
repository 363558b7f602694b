@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Logging
import Synchronization
import Testing

/// The results cache: a page reads totals counted in the background, counts for itself only when
/// nothing fresh enough is cached, and never runs two counts of one experiment at once.
struct ExperimentResultsCacheTests {
    /// A results store that counts its calls, can hold a count until released, and can fail.
    final class CountingStore: ExperimentResultsStore {
        private let state = Mutex<(calls: [String], failing: Set<String>, held: Bool)>(([], [], false))
        private let gate = AsyncGate()

        var calls: [String] { state.withLock { $0.calls } }
        func fail(_ experiment: String) { state.withLock { _ = $0.failing.insert(experiment) } }
        func hold() { state.withLock { $0.held = true } }
        func release() async { state.withLock { $0.held = false }; await gate.open() }

        func updateResults(_ query: ExperimentResultsQuery, now: Int64) async throws(StoreError) -> ExperimentTotals {
            let (held, failing) = state.withLock { state in
                state.calls.append(query.experiment)
                return (state.held, state.failing.contains(query.experiment))
            }
            if held { await gate.wait() }
            if failing { throw .unavailable("the database went away") }
            let count = calls.count
            return ExperimentTotals(
                units: Dictionary(uniqueKeysWithValues: query.arms.map { ($0, count) }), reassignedUnits: [:], metrics: [:],
                daily: [], countedThrough: now)
        }

        func deleteResults(experiment: String) async throws(StoreError) {}
    }

    /// Waiters parked until `open()`.
    actor AsyncGate {
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var isOpen = false
        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func open() {
            isOpen = true
            waiters.forEach { $0.resume() }
            waiters = []
        }
        var waiting: Int { waiters.count }
    }

    static func query(_ experiment: String, arms: [String] = ["off", "on"]) -> ExperimentResultsQuery {
        ExperimentResultsQuery(
            experiment: experiment, environment: "production", flag: "checkout", arms: arms, start: 0, end: nil, metrics: [])
    }

    @Test
    func aPageReadsCachedTotalsUntilTheyAreOlderThanItAllows() async throws {
        let store = CountingStore(), clock = ManualSeconds()
        let cache = ExperimentResultsCache(store: store, now: { Date(timeIntervalSince1970: 1_000 + clock.value) })
        let first = try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60))
        #expect(first.units["on"] == 1)
        #expect(first.countedThrough == 1_000_000)
        clock.advance(by: 59)
        let cached = try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60))
        #expect(cached == first)
        #expect(store.calls == ["e1"])
        clock.advance(by: 2)
        let recounted = try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60))
        #expect(recounted.units["on"] == 2)
        #expect(recounted.countedThrough == 1_061_000)
        #expect(store.calls == ["e1", "e1"])
    }

    @Test
    func aChangedQueryIsCountedAnewAndForgottenExperimentsAreNotServed() async throws {
        let store = CountingStore()
        let cache = ExperimentResultsCache(store: store, now: { Date(timeIntervalSince1970: 1_000) })
        _ = try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(3_600))
        let changed = try await cache.totals(for: Self.query("e1", arms: ["off", "on", "blue"]), maximumAge: .seconds(3_600))
        #expect(changed.units["blue"] == 2)
        #expect(store.calls.count == 2)
        await cache.forget(experiment: "e1")
        #expect(await cache.cachedExperiments.isEmpty)
        _ = try await cache.totals(for: Self.query("e1", arms: ["off", "on", "blue"]), maximumAge: .seconds(3_600))
        #expect(store.calls.count == 3)
    }

    @Test
    func aPageAskingDuringTheBackgroundCountWaitsForItInsteadOfCountingAgain() async throws {
        let store = CountingStore()
        store.hold()
        let cache = ExperimentResultsCache(store: store, now: { Date(timeIntervalSince1970: 1_000) })
        let background = Task { try await cache.refresh(Self.query("e1")) }
        let page = Task { try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60)) }
        // Both are parked on the one count (or the page has not asked yet, and then finds it cached).
        while store.calls.isEmpty { await Task.yield() }
        await store.release()
        let (counted, read) = (try await background.value, try await page.value)
        #expect(counted == read)
        #expect(store.calls == ["e1"])
    }

    @Test
    func aFailedCountThrowsCachesNothingAndTheNextAskCountsAgain() async throws {
        let store = CountingStore()
        store.fail("e1")
        let cache = ExperimentResultsCache(store: store, now: { Date(timeIntervalSince1970: 1_000) })
        await #expect(throws: StoreError.unavailable("the database went away")) {
            try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60))
        }
        #expect(await cache.cachedExperiments.isEmpty)
        await #expect(throws: StoreError.self) { try await cache.totals(for: Self.query("e1"), maximumAge: .seconds(60)) }
        #expect(store.calls == ["e1", "e1"])
    }

    @Test
    func theRefreshServiceCountsEveryRunningExperimentAndGoesOnPastAFailure() async throws {
        let store = CountingStore()
        store.fail("broken")
        let cache = ExperimentResultsCache(store: store, now: { Date(timeIntervalSince1970: 1_000) })
        let service = ExperimentResultsRefreshService(
            cache: cache, interval: .seconds(60), logger: Logger(label: "test")
        ) { [Self.query("e1"), Self.query("broken"), Self.query("e2")] }
        #expect(await service.refreshOnce() == 2)
        #expect(store.calls == ["e1", "broken", "e2"])
        #expect(await cache.cachedExperiments == ["e1", "e2"])
        // A page now reads what the service counted.
        _ = try await cache.totals(for: Self.query("e2"), maximumAge: .seconds(60))
        #expect(store.calls.count == 3)
    }

    @Test
    func aServiceThatCannotListExperimentsCountsNothingAndDoesNotThrow() async {
        struct Unreachable: Error {}
        let store = CountingStore()
        let service = ExperimentResultsRefreshService(
            cache: ExperimentResultsCache(store: store), interval: .seconds(60), logger: Logger(label: "test")
        ) { throw Unreachable() }
        #expect(await service.refreshOnce() == 0)
        #expect(store.calls.isEmpty)
    }
}
