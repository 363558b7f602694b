import Foundation
import Synchronization

/// The removal evidence of environments (``FlagEvidence``), computed from the event store at most
/// once a ``lifetime`` per environment, window and set of flags, so that the console's grid and
/// the admin API do not read a month of rollups on every request.
///
/// Evidence is daily: a minute-old answer says the same.
final class FlagEvidenceCache: Sendable {
    struct Key: Hashable {
        var environment: String
        var days: Int
        var flags: [String]
    }

    let store: (any FlagEventStore)?
    let now: @Sendable () -> Date
    /// How long a computed answer is served (milliseconds).
    let lifetime: Int64
    /// The most answers kept; the oldest goes first.
    static let maximumEntries = 32

    private let entries = Mutex<[Key: EnvironmentEvidence]>([:])

    init(store: (any FlagEventStore)?, now: @escaping @Sendable () -> Date, lifetime: Int64 = 60_000) {
        self.store = store
        self.now = now
        self.lifetime = lifetime
    }

    /// The evidence of `flags` in `environment` over `days` days: the kept answer while younger
    /// than ``lifetime``, else a new one read from the store.
    func evidence(environment: String, flags: [String], days: Int) async throws(StoreError) -> EnvironmentEvidence {
        let time = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        let key = Key(environment: environment, days: days, flags: flags.sorted())
        if let kept = entries.withLock({ $0[key] }), time >= kept.now, time - kept.now < lifetime { return kept }
        let evidence = try await FlagEvidence.load(from: store, environment: environment, flags: key.flags, days: days, now: time)
        entries.withLock { entries in
            entries[key] = evidence
            while entries.count > Self.maximumEntries, let oldest = entries.min(by: { $0.value.now < $1.value.now }) {
                entries[oldest.key] = nil
            }
        }
        return evidence
    }
}
