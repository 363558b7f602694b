import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Rollout leadership among PostgreSQL replicas: the replica holding a session advisory lock
/// (`pg_try_advisory_lock`, one key per schema) on a connection of its own, outside the pool, leads.
///
/// PostgreSQL drops a session's advisory locks when its connection ends. A replica killed with
/// SIGKILL, or whose machine stops, has its socket closed by the kernel (or the server's TCP
/// keepalive finds it gone): its backend exits, the lock is free, and the next replica to tick
/// takes it. A replica that cannot show its lock is still held (the connection broke, the check
/// did not answer within ``checkTimeout``) stops leading and closes the connection; until
/// PostgreSQL notices that connection gone, no replica leads, so two never act at once.
///
/// Replicas must reach PostgreSQL directly or through a session-pooling proxy: under transaction
/// pooling a session lock is not held by the connection that took it, and no replica would lead.
actor PostgresRolloutLeadership: RolloutLeadership {
    private let configuration: PostgresConnection.Configuration
    /// The advisory lock's key (``PostgresFlagStore/lockKey(_:)`` of the schema's name).
    nonisolated let key: Int64
    /// How long the lock's check (or taking it) may take before this replica stops leading.
    nonisolated let checkTimeout: Duration
    private let logger: Logger
    /// The lock's connection: it holds the lock while ``isLeading``; a follower keeps it to try
    /// again at its next tick.
    private var connection: PostgresConnection?
    /// Whether this replica held the lock when last asked.
    private(set) var isLeading = false

    init(configuration: PostgresConnection.Configuration, key: Int64, checkTimeout: Duration = .seconds(5), logger: Logger) {
        self.configuration = configuration
        self.key = key
        self.checkTimeout = checkTimeout
        self.logger = logger
    }

    func confirm() async -> Bool {
        if isLeading, let connection {
            do {
                if try await withinTimeout(connection, { try await Self.isHeld(self.key, on: connection, logger: self.logger) }) {
                    return true
                }
                logger.warning("this replica no longer holds the rollout lock; it stops acting on rollout plans")
            } catch {
                logger.warning("the rollout lock's connection failed; this replica stops acting on rollout plans: \(Self.describe(error))")
            }
            // Whatever the session still holds goes with it. A failed check ends the leadership
            // for this call: what the executor read while it led is not acted on; the next tick
            // takes the lock again if it is free.
            await drop()
            return false
        }
        let candidate: PostgresConnection
        if let connection {
            candidate = connection
        } else {
            do {
                candidate = try await PostgresConnection.connect(
                    configuration: configuration, id: Self.connectionIDs.add(1, ordering: .relaxed).newValue, logger: logger)
            } catch {
                logger.debug("no connection for the rollout lock: \(Self.describe(error))")
                return false
            }
            connection = candidate
            do {
                _ = try await withinTimeout(candidate) { try await Self.keepAlive(on: candidate, logger: self.logger) }
            } catch {
                logger.debug("setting up the rollout lock's connection failed: \(Self.describe(error))")
                await drop()
                return false
            }
        }
        do {
            guard try await withinTimeout(candidate, { try await Self.take(self.key, on: candidate, logger: self.logger) }) else {
                return false
            }
            isLeading = true
            logger.info("this replica leads the rollout executor (it holds the rollout lock)")
            return true
        } catch {
            logger.debug("taking the rollout lock failed: \(Self.describe(error))")
            await drop()
            return false
        }
    }

    func resign() async {
        let led = isLeading
        // Closing the session releases its advisory locks.
        await drop()
        if led { logger.info("this replica no longer leads the rollout executor (it stopped)") }
    }

    private func drop() async {
        let dropped = connection
        connection = nil
        isLeading = false
        // Not awaited: closing a connection the server already ended need not answer.
        if let dropped { Task { try? await dropped.close() } }
    }

    /// Runs `body` on `connection` for at most ``checkTimeout``. Past it, the check fails at once:
    /// the query's task is cancelled and the connection's socket closed (not a graceful end,
    /// which would wait for the query), and this does not wait for the query to notice. A
    /// connection that stopped answering (its server stopped, the network dropped it, its backend
    /// was ended while a reply was lost) must not be trusted to hold the lock, nor hold up the tick.
    private func withinTimeout(
        _ connection: PostgresConnection, _ body: @escaping @Sendable () async throws -> Bool
    ) async throws -> Bool {
        // postgres-nio drops the failure of a query written to a closed channel (the server ended
        // the session: `pg_terminate_backend`, a restart), so the query's answer would never come.
        guard !connection.isClosed else { throw PostgresRolloutLeadershipClosed() }
        let race = BoundedCheck()
        let timeout = checkTimeout
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            race.start(continuation)
            let query = Task {
                do { race.finish(.success(try await body())) } catch { race.finish(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: timeout)
                guard race.finish(.failure(PostgresRolloutLeadershipTimeout())) else { return }
                query.cancel()
                // Closes the socket at once (not `closeGracefully()`); the query fails with it.
                try? await connection.close()
            }
        }
    }

    /// Asks the server to probe the connection after 10 s of silence, every 5 s, 3 times: the
    /// backend of a leader whose machine stopped or was cut off ends (and frees the lock) about
    /// 25 s later, instead of after the operating system's default of hours. (Ignored over a
    /// Unix socket.)
    private static func keepAlive(on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        for try await _ in try await connection.query(
            """
            SELECT set_config('tcp_keepalives_idle', '10', false), set_config('tcp_keepalives_interval', '5', false),
                set_config('tcp_keepalives_count', '3', false)
            """, logger: logger) {}
        return true
    }

    /// `pg_try_advisory_lock`: takes the lock if no session holds it.
    private static func take(_ key: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        var taken = false
        for try await value in try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger).decode(Bool.self) {
            taken = value
        }
        return taken
    }

    /// Whether this session holds the lock: `pg_locks` shows a bigint key as its high half in
    /// `classid`, its low half in `objid`, and `objsubid` 1.
    private static func isHeld(_ key: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let bits = UInt64(bitPattern: key)
        let high = Int64(bits >> 32)
        let low = Int64(bits & 0xFFFF_FFFF)
        var held = false
        for try await value in try await connection.query(
            """
            SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
                AND classid = \(high)::oid AND objid = \(low)::oid AND objsubid = 1)
            """, logger: logger
        ).decode(Bool.self) {
            held = value
        }
        return held
    }

    /// The server's message for a database error, the error's description otherwise.
    private static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError { return error.serverInfo?[.message] ?? "\(error.code)" }
        return "\(error)"
    }

    /// Numbers the lock's connections (for postgres-nio's logs).
    private static let connectionIDs = Atomic<Int>(0)
}

/// The first of a check's answer and its deadline: resumes the waiting caller once, with
/// whichever comes first.
private final class BoundedCheck: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<Bool, any Error>?, result: Result<Bool, any Error>?)>((nil, nil))

    /// Hands over the caller's continuation (resumed at once if the check already ended).
    func start(_ continuation: CheckedContinuation<Bool, any Error>) {
        let early = state.withLock { state -> Result<Bool, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// Ends the check with `result`, if nothing ended it before: `false` when too late.
    @discardableResult
    func finish(_ result: Result<Bool, any Error>) -> Bool {
        let waiting = state.withLock { state -> (Bool, CheckedContinuation<Bool, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        waiting.1?.resume(with: result)
        return waiting.0
    }
}

/// The rollout lock's connection was closed (by the server, or after a check that did not answer).
struct PostgresRolloutLeadershipClosed: Error, CustomStringConvertible {
    var description: String { "the rollout lock's connection is closed" }
}

/// The rollout lock's check did not answer in time.
struct PostgresRolloutLeadershipTimeout: Error, CustomStringConvertible {
    var description: String { "the rollout lock's check did not answer in time" }
}

extension PostgresFlagStore {
    /// The rollout leadership of this store's replicas: one lock per schema, so servers over
    /// different schemas lead apart.
    func rolloutLeadership(logger: Logger) throws -> PostgresRolloutLeadership {
        PostgresRolloutLeadership(
            configuration: try listeningConfiguration(), key: Self.lockKey("flag-server rollouts " + (configuration.schema ?? "public")),
            logger: logger)
    }
}
