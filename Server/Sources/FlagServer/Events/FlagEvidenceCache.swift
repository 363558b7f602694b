import FlagServerModel
import Foundation
import Synchronization

/// The removal evidence of environments (``FlagEvidence``), computed from the event store at most
/// once a ``lifetime`` per environment and window, so that the console's grid and the admin API
/// do not read a month of rollups on every request.
///
/// What is kept is the evidence of the flags the events name; a request for other flags gets
/// theirs from it without reading the store (``EnvironmentEvidence/answering(_:)``), so that a
/// flag created or deleted does not empty the cache. Evidence is daily: a minute-old answer says
/// the same.
///
/// One computation per environment and window runs at a time: callers arriving while it runs
/// wait for it (``evidence(environment:flags:days:)``) or take what is kept without waiting
/// (``keptEvidence(environment:flags:days:)``, the grid's way: with ten thousand flags a month of
/// rollups takes seconds to read and reduce, and the grid must stay fast).
final class FlagEvidenceCache: Sendable {
    struct Key: Hashable {
        var environment: String
        var days: Int
    }

    private struct Entry {
        var evidence: EnvironmentEvidence?
        var computing: Task<EnvironmentEvidence, any Error>?
    }

    let store: (any FlagEventStore)?
    let now: @Sendable () -> Date
    /// How long a computed answer is fresh (milliseconds).
    let lifetime: Int64
    /// The most environments and windows kept; the oldest goes first.
    static let maximumEntries = 32

    private let entries = Mutex<[Key: Entry]>([:])

    init(store: (any FlagEventStore)?, now: @escaping @Sendable () -> Date, lifetime: Int64 = 60_000) {
        self.store = store
        self.now = now
        self.lifetime = lifetime
    }

    private var time: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }

    private func isFresh(_ evidence: EnvironmentEvidence, at time: Int64) -> Bool {
        time >= evidence.now && time - evidence.now < lifetime
    }

    /// The evidence of `flags` in `environment` over `days` days: the kept answer while fresh,
    /// else a new one read from the store (joining a computation already running).
    func evidence(environment: String, flags: [String], days: Int) async throws(StoreError) -> EnvironmentEvidence {
        let key = Key(environment: environment, days: days)
        let time = self.time
        if let kept = entries.withLock({ $0[key]?.evidence }), isFresh(kept, at: time) { return kept.answering(flags) }
        do {
            return try await computation(of: key, at: time).value.answering(flags)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database("the evidence could not be computed: \(error)")
        }
    }

    /// The kept evidence of `flags` (fresh or not) without waiting for the store; `nil` when none
    /// is kept yet. A missing or stale answer starts a computation for the next caller.
    func keptEvidence(environment: String, flags: [String], days: Int) -> EnvironmentEvidence? {
        let key = Key(environment: environment, days: days)
        let time = self.time
        let kept = entries.withLock { $0[key]?.evidence }
        if kept.map({ !isFresh($0, at: time) }) ?? true { _ = computation(of: key, at: time) }
        return kept?.answering(flags)
    }

    /// The running computation of `key`, or a new one.
    private func computation(of key: Key, at time: Int64) -> Task<EnvironmentEvidence, any Error> {
        entries.withLock { entries in
            if let running = entries[key]?.computing { return running }
            let store = self.store
            let task = Task<EnvironmentEvidence, any Error> { [weak self] in
                do {
                    let evidence = try await FlagEvidence.load(
                        from: store, environment: key.environment, flags: nil, days: key.days, now: time)
                    self?.keep(evidence, for: key)
                    return evidence
                } catch {
                    self?.keep(nil, for: key)
                    throw error
                }
            }
            entries[key, default: Entry()].computing = task
            return task
        }
    }

    /// Ends `key`'s computation, keeping its answer (a failure keeps the previous one).
    private func keep(_ evidence: EnvironmentEvidence?, for key: Key) {
        entries.withLock { entries in
            entries[key, default: Entry()].computing = nil
            if let evidence { entries[key]?.evidence = evidence }
            while entries.count > Self.maximumEntries,
                let oldest = entries.filter({ $0.value.computing == nil }).min(by: { ($0.value.evidence?.now ?? 0) < ($1.value.evidence?.now ?? 0) })
            {
                entries[oldest.key] = nil
            }
        }
    }
}
