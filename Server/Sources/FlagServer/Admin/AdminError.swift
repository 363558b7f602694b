/// Why the admin API refused a request.
public enum AdminError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The write would produce an invalid state; every problem is listed.
    case invalid([ValidationError])
    case notFound(String)
    case conflict(String)
    /// An approval rule covers the change: it needs an approved change request (409).
    case approvalRequired(String)
    case badRequest(String)
    case internalFailure(String)
    /// The database is unreachable or the write ran out of time; nothing was written. Retry later.
    case unavailable(String)

    init(store error: StoreError) {
        switch error {
        case .notFound(let what): self = .notFound("\(what) does not exist")
        case .conflict(let what): self = .conflict(what)
        case .staleRevision: self = .conflict(error.description)
        case .database(let problem): self = .internalFailure(problem)
        case .unavailable(let problem): self = .unavailable(problem)
        }
    }

    public var description: String {
        switch self {
        case .invalid(let problems): problems.map(\.description).joined(separator: "; ")
        case .notFound(let message), .conflict(let message), .approvalRequired(let message), .badRequest(let message), .internalFailure(let message),
            .unavailable(let message):
            message
        }
    }
}
