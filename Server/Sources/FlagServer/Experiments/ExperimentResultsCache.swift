import FlagServerModel
import Foundation
import HTTPTypes
public import Logging
import ServiceLifecycle

/// The latest totals of each experiment, counted in the background, so that a results page reads
/// them instead of counting.
///
/// Counting is incremental (``ExperimentResultsStore/updateResults(_:now:)`` reads only what
/// arrived since the last count), but what arrived can be a lot: with 100,000 units (debug build,
/// a loaded machine; `Server/Docs/ExperimentResults.md`), counting the newest 1 % took 101 ms on
/// SQLite and 694 ms on PostgreSQL, and a million units have ten times the rows. A page must answer in under
/// 200 ms, so ``ExperimentResultsRefreshService`` counts every running experiment each interval
/// and the page takes the totals counted last (their ``ExperimentTotals/countedThrough`` says
/// when), counting itself only when nothing is cached for the experiment or the cached totals are
/// older than the page allows.
///
/// One count runs per experiment at a time: a page asking while the background counts the same
/// experiment waits for that count instead of starting another.
public actor ExperimentResultsCache {
    private let store: any ExperimentResultsStore
    private let now: @Sendable () -> Date
    private var entries: [String: Entry] = [:]
    private var counting: [String: Count] = [:]

    private struct Entry {
        var query: ExperimentResultsQuery
        var totals: ExperimentTotals
        /// When the count that produced ``totals`` started.
        var countedAt: Date
    }

    private struct Count {
        var query: ExperimentResultsQuery
        var task: Task<ExperimentTotals, any Error>
        var started: Date
    }

    /// - Parameter now: The clock deciding the cached totals' age (and the `now` of each count).
    public init(store: any ExperimentResultsStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The totals of `query`: the cached ones when they were counted for the same query at most
    /// `maximumAge` ago, else counted now.
    public func totals(for query: ExperimentResultsQuery, maximumAge: Duration) async throws(StoreError) -> ExperimentTotals {
        if let entry = entries[query.experiment], entry.query == query,
            now().timeIntervalSince(entry.countedAt) <= maximumAge.seconds
        {
            return entry.totals
        }
        return try await refresh(query)
    }

    /// Counts what arrived for `query` since the last count and caches the totals; joins a count
    /// of the same query already running.
    @discardableResult
    public func refresh(_ query: ExperimentResultsQuery) async throws(StoreError) -> ExperimentTotals {
        let count: Count
        if let running = counting[query.experiment], running.query == query {
            count = running
        } else {
            // A count of another query of the same experiment (its settings changed) finishes
            // first: the store keeps one incremental state per experiment.
            let earlier = counting[query.experiment]?.task
            let store = self.store, now = self.now
            let task = Task {
                _ = try? await earlier?.value
                return try await store.updateResults(query, now: Int64((now().timeIntervalSince1970 * 1000).rounded(.down)))
            }
            count = Count(query: query, task: task, started: now())
            counting[query.experiment] = count
        }
        let task = count.task
        do {
            let totals = try await task.value
            if counting[query.experiment]?.task == task { counting[query.experiment] = nil }
            // Counts of one experiment run one after another: the one finishing last is the newest.
            entries[query.experiment] = Entry(query: query, totals: totals, countedAt: count.started)
            return totals
        } catch {
            if counting[query.experiment]?.task == task { counting[query.experiment] = nil }
            throw error as? StoreError ?? .database("\(error)")
        }
    }

    /// Forgets an experiment's cached totals (deleted, restarted or finished experiments).
    public func forget(experiment: String) {
        entries[experiment] = nil
    }

    /// The experiments whose totals are cached.
    public var cachedExperiments: Set<String> { Set(entries.keys) }

    /// The answer where the server's event store computes no results.
    static let unsupported = APIError(
        .serviceUnavailable, code: "unavailable",
        message: "this server's event store does not compute experiment results (start it with an event store that does)")
}

/// Counts every running experiment's results at start and then every interval, until a graceful
/// shutdown, so that results pages read totals at most an interval old. A failed count is logged
/// and tried again at the next interval; the page then counts for itself.
public struct ExperimentResultsRefreshService: Service {
    /// How often the server counts running experiments: a results page shows totals at most
    /// this old (twice it when a count is slow), and counts for itself past that.
    public static let defaultInterval: Duration = .seconds(60)

    let cache: ExperimentResultsCache
    let interval: Duration
    /// The queries of the experiments running now (read afresh each round).
    let running: @Sendable () async throws -> [ExperimentResultsQuery]
    let logger: Logger

    /// A service counting the experiments `running` returns every `interval` into `cache`, logging failures to `logger`.
    public init(
        cache: ExperimentResultsCache, interval: Duration, logger: Logger,
        running: @escaping @Sendable () async throws -> [ExperimentResultsQuery]
    ) {
        self.cache = cache
        self.interval = interval
        self.running = running
        self.logger = logger
    }

    /// One round: counts each running experiment; returns how many counts succeeded.
    @discardableResult
    public func refreshOnce() async -> Int {
        let queries: [ExperimentResultsQuery]
        do {
            queries = try await running()
        } catch {
            logger.warning("listing running experiments failed: \(error)", metadata: ["experiments": "results"])
            return 0
        }
        var counted = 0
        for query in queries {
            do {
                try await cache.refresh(query)
                counted += 1
            } catch {
                logger.warning(
                    "counting the results of experiment \(query.experiment) failed: \(error)", metadata: ["experiments": "results"])
            }
        }
        return counted
    }

    /// Counts at once and then every interval until a graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await refreshOnce()
                do { try await Task.sleep(for: interval) } catch { break }
            }
        }
    }
}
