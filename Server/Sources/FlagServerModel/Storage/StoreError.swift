/// Why a store refused or failed a write or a read.
public enum StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The write was based on a revision that is no longer current; reload and retry.
    case staleRevision(environment: String, expected: Int, actual: Int)
    /// Something the write names does not exist.
    case notFound(String)
    /// Something the write creates exists already.
    case conflict(String)
    /// The database failed or holds something unreadable.
    case database(String)
    /// The database could not be reached, or the write's deadline passed before it could commit;
    /// nothing was written. The text says which, without the driver's details (those are logged).
    case unavailable(String)

    /// One sentence for logs and answers: a stale write names its environment and both revisions.
    public var description: String {
        switch self {
        case .staleRevision(let environment, let expected, let actual):
            "environment \"\(environment)\" is at revision \(actual), not \(expected) as the write assumed; reload and retry"
        case .notFound(let what): "\(what) does not exist"
        case .conflict(let what): what
        case .database(let problem): "database: \(problem)"
        case .unavailable(let problem): problem
        }
    }
}

extension StoreError {
    /// Throws ``unavailable(_:)`` if `deadline` has passed: what a store checks inside a write's
    /// transaction right before `COMMIT`, so that a write its caller stopped waiting for rolls back.
    package static func checkDeadline(_ deadline: ContinuousClock.Instant?) throws(StoreError) {
        if let deadline, ContinuousClock.now >= deadline {
            throw .unavailable("the write did not commit within its time limit")
        }
    }
}
