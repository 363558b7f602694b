import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Finds the token of a request (`Authorization: Bearer …` or `X-API-Key`), checks its role and
/// environment, and applies the per-token rate limit.
struct RequestAuthenticator: Sendable {
    let publisher: StatePublisher
    let rateLimiter: RateLimiter?

    /// The token record of `request`, allowed `role` in `environment` (or in the token's own
    /// environment when `environment` is `nil`).
    ///
    /// - Throws: ``APIError``: 401 without a valid token, 403 for another environment or a weaker
    ///   role, 429 with `Retry-After` past the rate limit.
    func authorize(_ request: Request, role: TokenRole, environment: String?) throws -> TokenRecord {
        let record = try authenticate(request)
        if let retryAfter = rateLimiter?.acquire(record.id) {
            throw APIError(
                .tooManyRequests, code: "rate_limited",
                message: "token \"\(record.id)\" exceeded its rate limit; retry after \(retryAfter) s",
                headers: [.retryAfter: String(retryAfter)])
        }
        guard record.role >= role else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "token \"\(record.id)\" has role \(record.role.rawValue); this needs \(role.rawValue)")
        }
        if let environment, record.environment != TokenIssuer.allEnvironments, record.environment != environment {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "token \"\(record.id)\" is for environment \"\(record.environment)\", not \"\(environment)\"")
        }
        return record
    }

    /// The token record a stream ticket was issued for (see ``StreamTickets``), redeeming the
    /// ticket; the token must still be valid, and its rate limit applies.
    ///
    /// - Throws: ``APIError``: 401 for an unknown, used or expired ticket, or a token revoked
    ///   since; 429 past the token's rate limit.
    func authorize(ticket: String, from tickets: StreamTickets) throws -> TokenRecord {
        guard let redeemed = tickets.redeem(ticket), let record = publisher.current.tokens[redeemed.tokenID],
            record.revokedAt == nil, record.environment == redeemed.environment
        else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: "unknown, used or expired stream ticket: ask for a new one with POST /ofrep/v1/events/tickets")
        }
        if let retryAfter = rateLimiter?.acquire(record.id) {
            throw APIError(
                .tooManyRequests, code: "rate_limited",
                message: "token \"\(record.id)\" exceeded its rate limit; retry after \(retryAfter) s",
                headers: [.retryAfter: String(retryAfter)])
        }
        return record
    }

    /// The live token record of `request`, before any role, environment or rate check.
    ///
    /// - Throws: ``APIError`` 401: no credentials, an `Authorization` scheme other than `Bearer`,
    ///   an unknown or a revoked token.
    func authenticate(_ request: Request) throws -> TokenRecord {
        let presented: String
        if let authorization = request.headers[.authorization] {
            let scheme = authorization.prefix { $0 != " " }
            guard scheme.lowercased() == "bearer" else {
                throw APIError(
                    .unauthorized, code: "unauthorized",
                    message: "the Authorization scheme \"\(scheme.prefix(32))\" is not supported: send \"Authorization: Bearer <token>\" (or \"X-API-Key: <token>\")",
                    headers: [.wwwAuthenticate: "Bearer"])
            }
            guard let token = request.headers.bearer?.token, !token.isEmpty else {
                throw APIError(
                    .unauthorized, code: "unauthorized", message: "the Bearer credentials are empty: send \"Authorization: Bearer <token>\"",
                    headers: [.wwwAuthenticate: "Bearer"])
            }
            presented = token
        } else if let key = request.headers[.apiKey] {
            presented = key
        } else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: "missing token: send \"Authorization: Bearer <token>\"",
                headers: [.wwwAuthenticate: "Bearer"])
        }
        guard let record = TokenIssuer.verify(presented, in: publisher.current.tokens) else {
            throw APIError(.unauthorized, code: "unauthorized", message: "unknown token", headers: [.wwwAuthenticate: "Bearer"])
        }
        guard record.revokedAt == nil else {
            throw APIError(
                .unauthorized, code: "unauthorized", message: "token \"\(record.id)\" was revoked",
                headers: [.wwwAuthenticate: "Bearer"])
        }
        return record
    }

    /// The compiled environment a delivery token reads (its own environment).
    func environment(of record: TokenRecord) throws -> CompiledEnvironment {
        guard record.environment != TokenIssuer.allEnvironments else {
            throw APIError(
                .forbidden, code: "forbidden",
                message: "token \"\(record.id)\" is for all environments; delivery needs a token of one environment")
        }
        guard let environment = publisher.current.environments[record.environment] else {
            throw APIError(.notFound, code: "not_found", message: "environment \"\(record.environment)\" does not exist")
        }
        return environment
    }
}

extension HTTPField.Name {
    static let apiKey = HTTPField.Name("X-API-Key")!
    static let lastEventID = HTTPField.Name("Last-Event-ID")!
    static let acceptPatch = HTTPField.Name("Accept-Patch")!
}
