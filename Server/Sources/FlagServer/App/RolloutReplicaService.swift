import Foundation
import Logging
import ServiceLifecycle

/// Runs this server's ``RolloutExecutor`` under the replica's name: over a SQLite database, the
/// name claimed beside it (``ReplicaNameClaim``), the same after a restart, so that a process
/// killed in the middle of a step is followed by one that resumes the plan at its first tick
/// instead of waiting out the dead process's lease. Over PostgreSQL, a name of this process's own
/// and the rollout leadership (``PostgresRolloutLeadership``): only the replica holding the
/// database's rollout lock acts, and a replica killed while it led frees the lock with its
/// connection, so the next replica to tick leads and takes its plans over. Elsewhere (an
/// in-memory database) or when no name can be claimed, a name of this process's own: a plan a
/// killed process held waits for its lease to expire (`Server/Docs/Replicas.md`).
struct RolloutReplicaService: Service {
    let rollouts: Rollouts
    let store: any FlagStore
    let tickInterval: Duration
    let logger: Logger

    func run() async throws {
        let claim = await Self.claimName(store: store, logger: logger)
        defer { claim?.release() }
        let leadership = Self.leadership(store: store, logger: logger)
        let executor = RolloutExecutor(
            rollouts: rollouts, replica: claim?.name ?? UUID().uuidString, tickInterval: tickInterval, leadership: leadership,
            logger: logger)
        do {
            try await RolloutExecutorService(executor: executor).run()
        } catch {
            await leadership?.resign()
            throw error
        }
        await leadership?.resign()
    }

    /// The rollout leadership of replicas sharing `store`'s database, if it is PostgreSQL.
    static func leadership(store: any FlagStore, logger: Logger) -> PostgresRolloutLeadership? {
        guard let postgres = store as? PostgresFlagStore else { return nil }
        do {
            return try postgres.rolloutLeadership(logger: logger)
        } catch {
            // Only a TLS context that cannot be made fails here; the pool would fail alike.
            logger.error("no rollout lock can be taken (\(error)): this replica acts under leases alone, and a plan a killed replica held waits for its lease")
            return nil
        }
    }

    /// The name claimed beside `store`'s file, if it is a SQLite file and a slot is free.
    static func claimName(store: any FlagStore, logger: Logger) async -> ReplicaNameClaim? {
        guard let sqlite = store as? SQLiteFlagStore, let file = await sqlite.databaseFile() else { return nil }
        do {
            let claim = try ReplicaNameClaim.claim(besideDatabase: file)
            logger.info("rollout leases are held as \(claim.name) (kept in \(claim.file))")
            return claim
        } catch {
            logger.warning(
                "no replica name could be kept beside the database (\(error)): after a crash, plans this process held wait for their leases to expire")
            return nil
        }
    }
}
