import AsyncHTTPClient
import FlagEvaluation
import HTTPTypes
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// What the console asks of its OpenID provider: discovery, signing keys (cached, fetched again
/// for an unknown key id at most every ``OIDCConfiguration/keyRefetchInterval``) and the code
/// exchange. Every request has a timeout and a cap on the response's size.
final class OIDCProviderClient: Sendable {
    struct Metadata: Sendable {
        var authorizationEndpoint: String
        var tokenEndpoint: String
        var jwksURI: String
        /// Whether the client secret goes in the form (`client_secret_post`) rather than HTTP
        /// Basic authentication (`client_secret_basic`, the default of the specification).
        var postsSecret: Bool
    }

    private struct Cache {
        var metadata: (value: Metadata, fetchedAt: Date)?
        var keys: [JSONWebKey] = []
        var keysFetchedAt: Date?
        var lastKeyFetchAttempt: Date?
    }

    let configuration: OIDCConfiguration
    let http: HTTPClient
    let logger: Logger
    let now: @Sendable () -> Date
    private let cache = Mutex(Cache())

    init(configuration: OIDCConfiguration, http: HTTPClient, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.configuration = configuration
        self.http = http
        self.logger = logger
        self.now = now
    }

    /// The provider's metadata, from `/.well-known/openid-configuration` (cached).
    func metadata() async throws(OIDCFailure) -> Metadata {
        let time = now()
        if let cached = cache.withLock({ $0.metadata }), time.timeIntervalSince(cached.fetchedAt) < configuration.cacheLifetime {
            return cached.value
        }
        let document = try await getJSON(configuration.issuer + "/.well-known/openid-configuration", what: "discovery document")
        func string(_ key: String) throws(OIDCFailure) -> String {
            guard case .string(let value)? = document[key], !value.isEmpty else {
                throw .provider("the discovery document has no \(key)")
            }
            return value
        }
        guard try string("issuer") == configuration.issuer else {
            throw .provider("the discovery document names another issuer than the configured one")
        }
        let metadata = Metadata(
            authorizationEndpoint: try string("authorization_endpoint"), tokenEndpoint: try string("token_endpoint"),
            jwksURI: try string("jwks_uri"), postsSecret: Self.postsSecret(document["token_endpoint_auth_methods_supported"]))
        // The client secret goes to the token endpoint: it must be the issuer's own.
        guard Self.origin(metadata.tokenEndpoint) == Self.origin(configuration.issuer) else {
            throw .provider("the token endpoint is not on the issuer's origin (scheme, host and port): the client secret is not sent there")
        }
        for endpoint in [metadata.authorizationEndpoint, metadata.jwksURI] {
            guard let url = URL(string: endpoint), url.scheme == "https" || (url.scheme == "http" && OIDCConfiguration.isLoopback(url.host ?? "")) else {
                throw .provider("the discovery document names an endpoint that is not https")
            }
        }
        cache.withLock { $0.metadata = (metadata, time) }
        return metadata
    }

    /// Basic unless the provider lists only `client_secret_post`.
    static func postsSecret(_ methods: JSONValue?) -> Bool {
        guard case .array(let values)? = methods else { return false }
        let names = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        return !names.contains("client_secret_basic") && names.contains("client_secret_post")
    }

    /// `scheme://host:port` of a URL (the default port written out), or `nil`.
    static func origin(_ text: String) -> String? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// The keys that may have signed a token naming `keyID`: the cached ones; fetched again when
    /// stale, or when none has that id and the last fetch is at least
    /// ``OIDCConfiguration/keyRefetchInterval`` old (a rotated key).
    func keys(for keyID: String?) async throws(OIDCFailure) -> [JSONWebKey] {
        let time = now()
        let refetch: Bool = cache.withLock { cache in
            let stale = cache.keysFetchedAt.map { time.timeIntervalSince($0) >= configuration.cacheLifetime } ?? true
            let unknown = keyID.map { id in !cache.keys.contains { $0.id == id } } ?? false
            let allowed = cache.lastKeyFetchAttempt.map { time.timeIntervalSince($0) >= configuration.keyRefetchInterval } ?? true
            guard stale || (unknown && allowed) else { return false }
            // Claimed under the lock: requests at the same time do not all fetch.
            cache.lastKeyFetchAttempt = time
            return true
        }
        if refetch {
            let jwksURI = try await metadata().jwksURI
            let keys = JSONWebKey.keys(inJWKS: try await getJSON(jwksURI, what: "JWKS"))
            guard !keys.isEmpty else { throw .provider("the JWKS has no RS256 or ES256 signing key") }
            cache.withLock { cache in
                cache.keys = keys
                cache.keysFetchedAt = time
            }
            logger.debug("fetched the OpenID provider's signing keys", metadata: ["keys": "\(keys.count)"])
        }
        return cache.withLock { $0.keys }
    }

    /// Exchanges an authorization code at the token endpoint; returns the ID token (compact JWS).
    func idToken(code: String, verifier: String) async throws(OIDCFailure) -> String {
        let metadata = try await metadata()
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", configuration.redirectURL),
            ("code_verifier", verifier), ("client_id", configuration.clientID),
        ]
        var request = HTTPClientRequest(url: metadata.tokenEndpoint)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let secret = configuration.clientSecret {
            if metadata.postsSecret {
                form.append(("client_secret", secret))
            } else {
                // RFC 6749 2.3.1: both parts form-encoded before Basic's base64.
                let credentials = Self.formEncoded(configuration.clientID) + ":" + Self.formEncoded(secret)
                request.headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
            }
        }
        request.body = .bytes(ByteBuffer(string: form.map { Self.formEncoded($0.0) + "=" + Self.formEncoded($0.1) }.joined(separator: "&")))
        let (status, body) = try await send(request, what: "token response")
        guard let document = try? JSONValue(parsing: body.readableBytesView) else {
            throw .provider("the token endpoint answered \(status) with a body that is not JSON")
        }
        guard status == 200 else {
            // The error code is the specification's vocabulary (invalid_grant, …), not a secret.
            let code: String = if case .string(let text)? = document["error"] { String(text.prefix(64)) } else { "none" }
            throw OIDCFailure(
                .badGateway,
                message: "The identity provider refused to complete the sign-in. Start again; if it keeps failing, tell the server's operator.",
                reason: "the token endpoint answered \(status), error \(code)")
        }
        guard case .string(let idToken)? = document["id_token"] else { throw .provider("the token response has no id_token") }
        return idToken
    }

    static func formEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? ""
    }

    private func getJSON(_ url: String, what: String) async throws(OIDCFailure) -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let (status, body) = try await send(request, what: what)
        guard status == 200 else { throw .provider("the \(what) answered \(status)") }
        guard let document = try? JSONValue(parsing: body.readableBytesView), case .object = document else {
            throw .provider("the \(what) is not a JSON object")
        }
        return document
    }

    /// Sends `request` and reads its response, at most the configured bytes, all within the
    /// configured timeout (AsyncHTTPClient's deadline covers only the response head: a provider
    /// dripping its body is cut off here).
    private func send(_ request: HTTPClientRequest, what: String) async throws(OIDCFailure) -> (status: UInt, body: ByteBuffer) {
        let timeout = configuration.requestTimeout
        let limit = configuration.maximumResponseBytes
        let http = self.http
        do {
            return try await withThrowingTaskGroup(of: (status: UInt, body: ByteBuffer).self) { group in
                group.addTask {
                    let response = try await http.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
                    if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit {
                        throw NIOTooManyBytesError(maxBytes: limit)
                    }
                    return (response.status.code, try await response.body.collect(upTo: limit))
                }
                group.addTask {
                    // On purpose: the deadline of the whole exchange (cancelled when it finishes first).
                    try await Task.sleep(for: .seconds(timeout))
                    throw HTTPClientError.deadlineExceeded
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else { throw CancellationError() }
                return first
            }
        } catch is NIOTooManyBytesError {
            throw .provider("the \(what) is larger than \(limit) bytes")
        } catch let error as HTTPClientError {
            // AsyncHTTPClient's errors name what happened (deadlineExceeded, connect timeout, …), not the request.
            throw .provider("the \(what) could not be fetched (\(error))")
        } catch {
            // The error's type only: another error's description might quote the request.
            throw .provider("the \(what) could not be fetched (\(type(of: error)))")
        }
    }
}
