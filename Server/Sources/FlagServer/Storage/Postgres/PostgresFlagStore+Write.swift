import FlagEvaluation
import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore {
    /// Writes the rows the transition touched that differ, bumps revisions and appends the audit.
    ///
    /// A fixed number of statements per table whatever the write's size: every column of a
    /// multi-row statement is bound as one array and read back with `unnest` (in slices of at
    /// most ``PostgresFlagEventStore/maximumRowsPerStatement`` rows), so an import of 10,000 flags
    /// costs a few round trips, not one per flag, setting and audit entry.
    static func write(
        _ connection: PostgresConnection, logger: Logger, from state: ServerState, _ transition: StateTransition,
        changes: ChangeSet, time: Date
    ) async throws -> [String: Int] {
        let next = transition.state, delta = transition.delta, drafts = transition.audit
        var flags = Rows(), removedFlags: [String] = []
        for key in delta.flags.sorted() {
            if let flag = next.flags[key] {
                guard state.flags[key] != flag else { continue }
                flags.append(environment: "", key: key, document: flag.jsonValue.serialized())
            } else if state.flags[key] != nil {
                removedFlags.append(key)
            }
        }
        var settings = Rows(), removedSettings = Rows()
        var segments = Rows(), removedSegments = Rows()
        var revisions: [String: Int] = [:]
        let changed = Set(drafts.map(\.environment))
        for environment in next.environments.values.sorted(by: { $0.key < $1.key }) {
            let touchedSettings = delta.settings[environment.key] ?? []
            let touchedSegments = delta.segments[environment.key] ?? []
            guard delta.environments.contains(environment.key) || !touchedSettings.isEmpty || !touchedSegments.isEmpty
                || changed.contains(environment.key)
            else { continue }
            let old = state.environments[environment.key]
            // Environments first, one statement each (a write adds or moves a few): the settings
            // and segments written below reference them.
            if old == nil {
                try await connection.query(
                    "INSERT INTO environments (key, revision, position) VALUES (\(environment.key), 0, \(environment.position))",
                    logger: logger)
            } else if old?.position != environment.position {
                try await connection.query(
                    "UPDATE environments SET position = \(environment.position) WHERE key = \(environment.key)", logger: logger)
            }
            for flag in touchedSettings.sorted() {
                let document = environment.settings[flag]
                guard old?.settings[flag] != document else { continue }
                if let document {
                    settings.append(environment: environment.key, key: flag, document: document.jsonValue.serialized())
                } else {
                    removedSettings.append(environment: environment.key, key: flag)
                }
            }
            for key in touchedSegments.sorted() {
                let rule = environment.segments[key]
                guard old?.segments[key] != rule else { continue }
                if let rule {
                    segments.append(environment: environment.key, key: key, document: rule.serialized())
                } else {
                    removedSegments.append(environment: environment.key, key: key)
                }
            }
            if changed.contains(environment.key) { revisions[environment.key] = environment.revision + 1 }
        }

        for slice in removedFlags.slices(of: PostgresFlagEventStore.maximumRowsPerStatement) {
            try await connection.query("DELETE FROM flags WHERE key = ANY(\(Array(slice)))", logger: logger)
        }
        for rows in flags.slices {
            try await connection.query(
                """
                INSERT INTO flags (key, document) SELECT * FROM unnest(\(rows.keys), \(rows.documents))
                ON CONFLICT (key) DO UPDATE SET document = excluded.document
                """, logger: logger)
        }
        for rows in removedSettings.slices {
            try await connection.query(
                """
                DELETE FROM flag_settings USING unnest(\(rows.environments), \(rows.keys)) AS removed (environment, flag)
                WHERE flag_settings.environment = removed.environment AND flag_settings.flag = removed.flag
                """, logger: logger)
        }
        for rows in settings.slices {
            try await connection.query(
                """
                INSERT INTO flag_settings (environment, flag, document)
                SELECT * FROM unnest(\(rows.environments), \(rows.keys), \(rows.documents))
                ON CONFLICT (environment, flag) DO UPDATE SET document = excluded.document
                """, logger: logger)
        }
        for rows in removedSegments.slices {
            try await connection.query(
                """
                DELETE FROM segments USING unnest(\(rows.environments), \(rows.keys)) AS removed (environment, key)
                WHERE segments.environment = removed.environment AND segments.key = removed.key
                """, logger: logger)
        }
        for rows in segments.slices {
            try await connection.query(
                """
                INSERT INTO segments (environment, key, rule) SELECT * FROM unnest(\(rows.environments), \(rows.keys), \(rows.documents))
                ON CONFLICT (environment, key) DO UPDATE SET rule = excluded.rule
                """, logger: logger)
        }
        let seconds = time.timeIntervalSince1970
        for (environment, revision) in revisions.sorted(by: { $0.key < $1.key }) {
            try await connection.query(
                "UPDATE environments SET revision = \(revision) WHERE key = \(environment)", logger: logger)
            try await connection.query(
                """
                INSERT INTO revisions (environment, revision, time, actor, reason)
                VALUES (\(environment), \(revision), \(seconds), \(changes.actor), \(changes.reason))
                """, logger: logger)
        }
        // The audit in the drafts' order: `id` orders entries of one revision.
        for slice in drafts.slices(of: PostgresFlagEventStore.maximumRowsPerStatement) {
            try await connection.query(
                """
                INSERT INTO audit (environment, revision, time, actor, reason, subject, key, before, after, reverted_to)
                SELECT environment, revision, \(seconds), \(changes.actor), \(changes.reason), subject, key, before, after, reverted_to
                FROM unnest(\(slice.map(\.environment)), \(slice.map { revisions[$0.environment] ?? 0 }),
                    \(slice.map(\.subject.rawValue)), \(slice.map(\.key)), \(PostgresNullableArray(slice.map { $0.before?.serialized() })),
                    \(PostgresNullableArray(slice.map { $0.after?.serialized() })), \(PostgresNullableArray(slice.map(changes.revertedTo))))
                    WITH ORDINALITY AS draft (environment, revision, subject, key, before, after, reverted_to, position)
                ORDER BY position
                """, logger: logger)
        }
        return revisions
    }

    /// Rows of (environment, key, document) bound as one array per column.
    private struct Rows {
        var environments: [String] = []
        var keys: [String] = []
        var documents: [String] = []

        mutating func append(environment: String, key: String, document: String? = nil) {
            environments.append(environment)
            keys.append(key)
            if let document { documents.append(document) }
        }

        /// The rows in slices of at most ``PostgresFlagEventStore/maximumRowsPerStatement``.
        var slices: [Rows] {
            let size = PostgresFlagEventStore.maximumRowsPerStatement
            return stride(from: 0, to: keys.count, by: size).map { start in
                let end = min(start + size, keys.count)
                return Rows(
                    environments: Array(environments[start..<end]), keys: Array(keys[start..<end]),
                    documents: documents.isEmpty ? [] : Array(documents[start..<end]))
            }
        }
    }
}

extension Array {
    /// The elements in slices of at most `size`: the rows of one multi-row statement each.
    func slices(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
