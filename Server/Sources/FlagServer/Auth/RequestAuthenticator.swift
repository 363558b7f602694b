import FlagServerModel
import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Finds the token of a request (`Authorization: Bearer …` or `X-API-Key`), checks its role and
/// environment, and applies the rate limit.
///
/// The limit counts per client for delivery tokens (client and server roles): every phone of an
/// app shares its client token, so a limit per token would refuse a fleet. A client is the
/// token and the client's address (see ``TrustedProxies``; an IPv6 address by its /64), not the
/// context's targeting key: a request body is read after this check, and a targeting key is
/// whatever the caller writes, so one caller could take a new allowance per request. Admin
/// tokens are limited per token, wherever their requests come from.
struct RequestAuthenticator: Sendable {
    let publisher: StatePublisher
    let rateLimiter: RateLimiter?
    /// The proxies whose forwarding headers name the client.
    var trustedProxies = TrustedProxies.none

    /// The rate-limit key of a request with `record`: the token for admin tokens, else the
    /// token and the client.
    func rateLimitKey(_ record: TokenRecord, request: Request) -> String {
        guard record.role < .admin else { return record.id }
        return record.id + " " + trustedProxies.limitKey(of: request.headers)
    }

    private func limit(_ record: TokenRecord, request: Request) throws {
        guard let retryAfter = rateLimiter?.acquire(rateLimitKey(record, request: request)) else { return }
        let whose = record.role < .admin ? "this client of token \"\(record.id)\"" : "token \"\(record.id)\""
        throw APIError(
            .tooManyRequests, code: "rate_limited",
            message: "\(whose) exceeded its rate limit; retry after \(retryAfter) s",
            headers: [.retryAfter: String(retryAfter)])
    }

    /// The token record of `request`, allowed `role` in `environment` (or in the token's own
    /// environment when `environment` is `nil`).
    ///
    /// - Throws: ``APIError``: 401 without a valid token, 403 for another environment or a weaker
    ///   role, 429 with `Retry-After` past the rate limit.
    func authorize(_ request: Request, role: TokenRole, environment: String?) throws -> TokenRecord {
        let record = try authenticate(request)
        try limit(record, request: request)
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
    /// ticket; the token must still be valid, and the rate limit of the `request`'s client applies.
    ///
    /// - Throws: ``APIError``: 401 for an unknown, used or expired ticket, or a token revoked
    ///   since; 429 past the rate limit.
    func authorize(ticket: String, from tickets: StreamTickets, request: Request) throws -> TokenRecord {
        guard let redeemed = tickets.redeem(ticket), let record = publisher.current.tokens[redeemed.tokenID],
            record.revokedAt == nil, record.environment == redeemed.environment
        else {
            throw APIError(
                .unauthorized, code: "unauthorized",
                message: "unknown, used or expired stream ticket: ask for a new one with POST /ofrep/v1/events/tickets")
        }
        try limit(record, request: request)
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
