import FlagEvaluation
import FlagServerModel
import Synchronization

/// What the flags grid derives from a state and its audit, kept while no environment's revision
/// changes (every change, on this replica or another, is a new revision): the filters' choices
/// (owners, phases, tags over every flag) and each listed flag's last change. With ten thousand
/// flags this spares each page view a pass over all of them and three audit look-ups a row.
final class FlagGridCache: Sendable {
    struct Facets: Sendable {
        var owners: [String]
        var phases: [Int]
        var tags: [String]
    }

    private struct Contents {
        var revisions: [String: Int] = [:]
        var facets: Facets?
        /// The newest audit entry of a flag across the environments; `nil` for none.
        var lastChanges: [String: AuditEntry?] = [:]
    }

    private let contents = Mutex(Contents())

    /// Empties the cache when `state` is at other revisions than what it holds.
    private func current(_ state: ServerState) -> [String: Int] {
        let revisions = state.environments.mapValues(\.revision)
        contents.withLock { contents in
            if contents.revisions != revisions { contents = Contents(revisions: revisions) }
        }
        return revisions
    }

    func facets(of state: ServerState) -> Facets {
        let revisions = current(state)
        if let facets = contents.withLock({ $0.facets }) { return facets }
        let facets = Facets(
            owners: Set(state.flags.values.compactMap(\.metadata.owner)).sorted(),
            phases: Set(state.flags.values.compactMap(\.metadata.phase)).sorted(),
            tags: Set(state.flags.values.flatMap(FlagGrid.tags)).sorted())
        contents.withLock { if $0.revisions == revisions { $0.facets = facets } }
        return facets
    }

    /// The last change of each of `keys` (those with one), reading the audit (`read`: the keys'
    /// last changes, in one call) only for keys it does not hold at `state`'s revisions.
    func lastChanges(
        of keys: [String], in state: ServerState, reading read: ([String]) async -> [String: AuditEntry]
    ) async -> [String: AuditEntry] {
        let revisions = current(state)
        let known = contents.withLock { contents in keys.compactMap { key in contents.lastChanges[key].map { (key, $0) } } }
        var result: [String: AuditEntry?] = Dictionary(known, uniquingKeysWith: { first, _ in first })
        let missing = keys.filter { result[$0] == nil }
        if !missing.isEmpty {
            let read = await read(missing)
            let fetched = Dictionary(missing.map { ($0, read[$0]) }, uniquingKeysWith: { first, _ in first })
            result.merge(fetched) { _, new in new }
            contents.withLock { contents in
                guard contents.revisions == revisions else { return }
                contents.lastChanges.merge(fetched) { _, new in new }
            }
        }
        return result.compactMapValues { $0 }
    }
}
