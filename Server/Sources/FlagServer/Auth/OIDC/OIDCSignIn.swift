import AsyncHTTPClient
import Crypto
import FlagEvaluation
import HTTPTypes
public import Foundation
public import Logging
import Synchronization

/// Console sign-in through an OpenID provider: the authorization code flow with PKCE (S256),
/// `state` and `nonce`.
///
/// ``start()`` remembers a pending sign-in under a random `state`, bound to the browser by a
/// random value whose SHA-256 digest is kept (the browser holds the value in a cookie), and
/// returns the provider's authorization URL. ``finish(state:code:error:binding:)`` takes the
/// pending sign-in out (a `state` works once), checks the browser binding and the expiry,
/// exchanges the code, verifies the ID token (signature, `iss`, `aud`/`azp`, `exp`/`iat`,
/// `nonce`) and signs the person in as the console user its username claim names, with the
/// role its role claim maps to.
///
/// Pending sign-ins live in this process: with several replicas behind a load balancer, the
/// provider's redirect must reach the replica that started the sign-in (sticky sessions).
public final class OIDCSignIn: Sendable {
    struct Pending: Sendable {
        var bindingDigest: [UInt8]
        var nonce: String
        var verifier: String
        var expiresAt: Date
    }

    /// Where the browser goes, and the value of its binding cookie.
    struct Start: Sendable {
        var location: String
        var binding: String
    }

    /// The provider and the claims the sign-ins use.
    public let configuration: OIDCConfiguration
    let accounts: ConsoleAccounts
    let client: OIDCProviderClient
    let logger: Logger
    let now: @Sendable () -> Date
    private let pending = Mutex<[String: Pending]>([:])

    /// Sign-ins at the provider `configuration` names, as users of `accounts`; `now` reads the clock (injected by tests).
    public init(
        configuration: OIDCConfiguration, accounts: ConsoleAccounts, httpClient: HTTPClient = .shared, logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.configuration = configuration
        self.accounts = accounts
        self.client = OIDCProviderClient(configuration: configuration, http: httpClient, logger: logger, now: now)
        self.logger = logger
        self.now = now
    }

    /// Begins a sign-in: the authorization URL and the browser binding.
    func start() async throws(OIDCFailure) -> Start {
        let metadata = try await client.metadata()
        let state = ConsoleAccounts.randomHex(bytes: 32)
        let binding = ConsoleAccounts.randomHex(bytes: 32)
        let nonce = ConsoleAccounts.randomHex(bytes: 32)
        // RFC 7636: 43–128 characters; 32 random bytes in base64url are 43.
        let verifier = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64URLEncoded
        let challenge = Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncoded
        let time = now()
        let stored: Bool = pending.withLock { pending in
            if pending.count >= configuration.maximumPending { pending = pending.filter { $0.value.expiresAt > time } }
            guard pending.count < configuration.maximumPending else { return false }
            pending[state] = Pending(
                bindingDigest: Array(SHA256.hash(data: Data(binding.utf8))), nonce: nonce, verifier: verifier,
                expiresAt: time.addingTimeInterval(configuration.pendingLifetime))
            return true
        }
        guard stored else {
            throw OIDCFailure(
                .serviceUnavailable, message: "Too many sign-ins are in progress. Try again in a few minutes.",
                reason: "\(configuration.maximumPending) sign-ins pending")
        }
        let query: [(String, String)] = [
            ("response_type", "code"), ("client_id", configuration.clientID), ("redirect_uri", configuration.redirectURL),
            ("scope", configuration.scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
            ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ]
        let separator = metadata.authorizationEndpoint.contains("?") ? "&" : "?"
        let location = metadata.authorizationEndpoint + separator
            + query.map { OIDCProviderClient.formEncoded($0.0) + "=" + OIDCProviderClient.formEncoded($0.1) }.joined(separator: "&")
        return Start(location: location, binding: binding)
    }

    /// Completes a sign-in from the provider's redirect (its `state`, `code` or `error`) and the
    /// browser's binding cookie.
    func finish(state: String?, code: String?, error: String?, binding: String?) async throws(OIDCFailure) -> ConsoleAccounts.SignedIn {
        let again = "Start the sign-in again from the sign-in page."
        guard let state, !state.isEmpty, state.utf8.count <= 256 else {
            throw OIDCFailure(.badRequest, message: "The sign-in answer has no state. \(again)", reason: "callback without state")
        }
        let time = now()
        // Taken out whatever follows: a state works once.
        let found = pending.withLock { $0.removeValue(forKey: state) }
        guard let found, found.expiresAt > time else {
            throw OIDCFailure(
                .badRequest, message: "This sign-in was already used or has expired. \(again)",
                reason: found == nil ? "unknown or already used state" : "expired state")
        }
        guard let binding, TokenIssuer.constantTimeEqual(Array(SHA256.hash(data: Data(binding.utf8))), found.bindingDigest) else {
            throw OIDCFailure(
                .badRequest, message: "This sign-in was started in another browser or its cookie is missing. \(again)",
                reason: "state not bound to this browser")
        }
        if let error {
            // The provider's error code (access_denied, …) is the specification's vocabulary.
            let code = String(error.prefix(64).filter { $0.isLetter || $0 == "_" })
            throw OIDCFailure(
                .forbidden, message: "The identity provider did not sign you in (\(code)). \(again)", reason: "the provider answered \(code)")
        }
        guard let code, !code.isEmpty, code.utf8.count <= 4096 else {
            throw OIDCFailure(.badRequest, message: "The sign-in answer has no code. \(again)", reason: "callback without code")
        }
        let token = try IDToken(compact: try await client.idToken(code: code, verifier: found.verifier))
        let keys = try await client.keys(for: token.keyID)
        guard token.isSigned(byOneOf: keys) else {
            throw .token("the \(token.algorithm) signature does not verify with the provider's keys (kid \(token.keyID.map { "\"\($0.prefix(64))\"" } ?? "none"))")
        }
        try token.checkClaims(
            issuer: configuration.issuer, clientID: configuration.clientID, nonce: found.nonce, now: time, skew: configuration.clockSkew)
        guard case .string(let name)? = token.claims[configuration.usernameClaim] else {
            throw OIDCFailure(
                .forbidden,
                message: "The identity provider did not say who you are (its \(configuration.usernameClaim) claim is missing). Tell the server's operator.",
                reason: "the ID token has no \(configuration.usernameClaim) claim")
        }
        guard StateValidator.isValidKey(name) else {
            throw OIDCFailure(
                .forbidden,
                message: "Your name at the identity provider cannot be a console user name (it \(StateValidator.keyRule)). Tell the server's operator.",
                reason: "the \(configuration.usernameClaim) claim is not a valid console user name")
        }
        guard let role = configuration.role(claimValues: token.strings(configuration.roleClaim)) else {
            throw OIDCFailure(
                .forbidden,
                message: "Your account at the identity provider gives you no role in this console. Ask an admin to add you to a group that grants one.",
                reason: "no role: the \(configuration.roleClaim) claim matches no mapping and there is no default role")
        }
        return try await accounts.signIn(singleSignOn: name, role: role)
    }

    /// Pending sign-ins (tests).
    var pendingCount: Int { pending.withLock { $0.count } }
}
