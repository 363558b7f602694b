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

    public var description: String {
        switch self {
        case .staleRevision(let environment, let expected, let actual):
            "environment \"\(environment)\" is at revision \(actual), not \(expected) as the write assumed; reload and retry"
        case .notFound(let what): "\(what) does not exist"
        case .conflict(let what): what
        case .database(let problem): "database: \(problem)"
        }
    }
}
