/// Why the admin API refused a request.
public enum AdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The write would produce an invalid state; every problem is listed.
    case invalid([ValidationError])
    /// Something the request names does not exist (404); the text says what.
    case notFound(String)
    /// The request conflicts with the stored state: a key taken, a version or revision moved on (409).
    case conflict(String)
    /// An approval rule covers the change: it needs an approved change request (409).
    case approvalRequired(String)
    /// The request itself is malformed: a field missing, of the wrong type or out of range (400).
    case badRequest(String)
    /// The database failed or holds something unreadable (500).
    case internalFailure(String)
    /// The database is unreachable or the write ran out of time; nothing was written. Retry later.
    case unavailable(String)

    /// The admin API's answer to a store's refusal or failure: a stale revision is a conflict, a database failure an internal failure.
    package init(store error: StoreError) {
        switch error {
        case .notFound(let what): self = .notFound("\(what) does not exist")
        case .conflict(let what): self = .conflict(what)
        case .staleRevision: self = .conflict(error.description)
        case .database(let problem): self = .internalFailure(problem)
        case .unavailable(let problem): self = .unavailable(problem)
        }
    }

    /// The message the answer carries: each problem of an invalid write, joined by `; `, or the case's text.
    public var description: String {
        switch self {
        case .invalid(let problems): problems.map(\.description).joined(separator: "; ")
        case .notFound(let message), .conflict(let message), .approvalRequired(let message), .badRequest(let message), .internalFailure(let message),
            .unavailable(let message):
            message
        }
    }
}
