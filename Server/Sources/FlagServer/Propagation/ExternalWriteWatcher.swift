public import Logging
public import ServiceLifecycle

/// Makes a server on SQLite serve what another process committed to its file: a token or an
/// account from `flag-server add-token`/`add-user`, or a second server on the same file. Every
/// ``interval`` it reads the store's ``SQLiteFlagStore/dataVersion()``, which changes only when
/// another connection committed, and reloads the served state (flags, segments, tokens) when it
/// did. Replicas on PostgreSQL have ``ReplicaSynchronizer`` instead.
public struct ExternalWriteWatcher: Service, Sendable {
    let admin: FlagAdmin
    let store: SQLiteFlagStore
    /// How often the file is asked whether another connection committed.
    public let interval: Duration
    let logger: Logger

    /// One second by default: a token added on the command line works within about a second, at
    /// the cost of one `PRAGMA` a second.
    public init(admin: FlagAdmin, store: SQLiteFlagStore, interval: Duration = .seconds(1), logger: Logger) {
        self.admin = admin
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Checks every interval, reloading the served state after an outside commit, until a graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen = try? await store.dataVersion()
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { break }
                seen = await check(after: seen)
            }
        }
    }

    /// Reloads the served state when the data version differs from `seen`; returns the version
    /// now seen (`seen` again when the database could not be read, so the next look retries).
    func check(after seen: Int?) async -> Int? {
        let version: Int
        do { version = try await store.dataVersion() } catch {
            logger.warning("reading the database's data version failed: \(error)")
            return seen
        }
        guard version != seen else { return seen }
        do {
            try await admin.refresh()
            logger.info("another process wrote to the database: reloaded the served state")
            return version
        } catch {
            logger.warning("reloading after another process's write failed: \(error)")
            return seen
        }
    }
}
