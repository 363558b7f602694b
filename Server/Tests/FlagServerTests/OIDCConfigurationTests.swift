import FlagEvaluation
@testable import FlagServer
import Foundation
import Testing

/// Single sign-on's settings from options and variables, and the ID token checks that need a
/// clock (the rest is exercised against a real provider in ``SingleSignOnTests``).
struct OIDCConfigurationTests {
    static let environment = [
        "FLAG_SERVER_OIDC_ISSUER": "https://id.example.com/realms/main/",
        "FLAG_SERVER_OIDC_CLIENT_ID": "flag-console",
        "FLAG_SERVER_OIDC_CLIENT_SECRET": "env-secret-value",
        "FLAG_SERVER_OIDC_REDIRECT_URL": "https://flags.example.com/console/login/sso/callback",
        "FLAG_SERVER_OIDC_ROLE_MAPPING": "flag-admins=admin, flag-editors=editor",
        "FLAG_SERVER_OIDC_DEFAULT_ROLE": "viewer",
        "FLAG_SERVER_PASSWORD_SIGN_IN": "false",
    ]

    @Test
    func variablesConfigureSingleSignOn() throws {
        let configuration = try #require(try OIDCConfiguration.resolve(environment: Self.environment))
        #expect(configuration.issuer == "https://id.example.com/realms/main")
        #expect(configuration.clientSecret == "env-secret-value")
        #expect(configuration.scopes == ["openid", "profile", "email"])
        #expect(configuration.usernameClaim == "preferred_username")
        #expect(configuration.roleClaim == "groups")
        #expect(configuration.roleMapping == ["flag-admins": .admin, "flag-editors": .editor])
        #expect(configuration.defaultRole == .viewer)
        #expect(!configuration.allowsPasswords)
        #expect(configuration.role(claimValues: ["flag-editors", "flag-admins"]) == .admin)
        #expect(configuration.role(claimValues: ["ops"]) == .viewer)
    }

    @Test
    func optionsWinAndTheSecretFileWinsOverTheVariable() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-secret-\(UUID().uuidString)")
        try Data("file-secret-value\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try #require(try OIDCConfiguration.resolve(
            clientID: "other", clientSecretFile: file.path, scopes: "openid,groups", roleClaim: "roles", defaultRole: "refuse",
            passwordSignIn: true, environment: Self.environment))
        #expect(configuration.clientID == "other")
        #expect(configuration.clientSecret == "file-secret-value")
        #expect(configuration.scopes == ["openid", "groups"])
        #expect(configuration.roleClaim == "roles")
        #expect(configuration.defaultRole == nil)
        #expect(configuration.role(claimValues: ["ops"]) == nil)
        #expect(configuration.allowsPasswords)
    }

    @Test
    func theSecretIsRedacted() throws {
        let configuration = try #require(try OIDCConfiguration.resolve(environment: Self.environment))
        #expect(!configuration.description.contains("env-secret-value"))
        #expect(configuration.description.contains("<REDACTED>"))
        #expect(!"\(configuration)".contains("env-secret-value"))
    }

    @Test
    func withoutAnIssuerSingleSignOnIsOffAndPasswordsCannotBeTurnedOff() throws {
        #expect(try OIDCConfiguration.resolve(environment: [:]) == nil)
        let error = #expect(throws: ConfigurationError.self) {
            try OIDCConfiguration.resolve(environment: ["FLAG_SERVER_PASSWORD_SIGN_IN": "false"])
        }
        #expect(error?.description.contains("FLAG_SERVER_OIDC_ISSUER") == true)
    }

    @Test(arguments: [
        ("FLAG_SERVER_OIDC_ISSUER", "http://id.example.com", "must use https"),
        ("FLAG_SERVER_OIDC_ISSUER", "id.example.com", "not an absolute URL"),
        ("FLAG_SERVER_OIDC_CLIENT_ID", "", "client id is missing"),
        ("FLAG_SERVER_OIDC_REDIRECT_URL", "https://flags.example.com/callback", "must be the console's callback"),
        ("FLAG_SERVER_OIDC_SCOPES", "profile email", "must include openid"),
        ("FLAG_SERVER_OIDC_ROLE_MAPPING", "flag-admins=owner", "is not value=role"),
        ("FLAG_SERVER_OIDC_DEFAULT_ROLE", "superuser", "is not refuse, viewer, editor or admin"),
        ("FLAG_SERVER_PASSWORD_SIGN_IN", "maybe", "is not true or false"),
        ("FLAG_SERVER_OIDC_CLIENT_SECRET_FILE", "/nonexistent/secret", "cannot be read"),
    ])
    func aBadSettingIsRefusedNamingIt(variable: String, value: String, message: String) {
        var environment = Self.environment
        environment[variable] = value
        let error = #expect(throws: ConfigurationError.self) { try OIDCConfiguration.resolve(environment: environment) }
        #expect(error?.description.contains(message) == true, "\(error?.description ?? "")")
    }

    @Test
    func plainHTTPIsAllowedOnlyOnLoopback() throws {
        var environment = Self.environment
        environment["FLAG_SERVER_OIDC_ISSUER"] = "http://127.0.0.1:5556"
        #expect(try OIDCConfiguration.resolve(environment: environment)?.issuer == "http://127.0.0.1:5556")
    }

    @Test
    func theTokenEndpointMustShareTheIssuersOrigin() {
        #expect(OIDCProviderClient.origin("https://id.example.com/token") == OIDCProviderClient.origin("https://id.example.com:443/realms/x"))
        #expect(OIDCProviderClient.origin("https://id.example.com.evil.test/token") != OIDCProviderClient.origin("https://id.example.com"))
        #expect(OIDCProviderClient.origin("http://id.example.com/token") != OIDCProviderClient.origin("https://id.example.com"))
        #expect(OIDCProviderClient.origin("https://id.example.com:8443/token") != OIDCProviderClient.origin("https://id.example.com"))
    }

    // MARK: - Time claims

    /// A token with these claims (its signature is not what these tests check).
    static func token(_ claims: [String: JSONValue]) throws -> IDToken {
        func part(_ value: JSONValue) -> String { Data(value.serialized().utf8).base64URLEncoded }
        let header = part(.object(["alg": .string("RS256"), "kid": .string("k")]))
        return try IDToken(compact: header + "." + part(.object(claims)) + "." + Data("signature".utf8).base64URLEncoded)
    }

    static func claims(exp: Int, iat: Int) -> [String: JSONValue] {
        [
            "iss": .string("https://id.example.com"), "aud": .string("flag-console"), "exp": .int(exp), "iat": .int(iat),
            "nonce": .string("n-1"),
        ]
    }

    static func check(_ token: IDToken, at now: Int) throws(OIDCFailure) {
        try token.checkClaims(
            issuer: "https://id.example.com", clientID: "flag-console", nonce: "n-1", now: Date(timeIntervalSince1970: TimeInterval(now)),
            skew: 60)
    }

    @Test
    func expiryAndIssueTimeAllowSixtySecondsOfSkewAndNoMore() throws {
        let token = try Self.token(Self.claims(exp: 1000, iat: 700))
        try Self.check(token, at: 1059)
        #expect(throws: OIDCFailure.self) { try Self.check(token, at: 1060) }
        // Issued up to 60 s ahead of this server's clock: accepted; more: refused.
        try Self.check(token, at: 640)
        #expect(throws: OIDCFailure.self) { try Self.check(token, at: 639) }
    }

    @Test
    func severalAudiencesNeedTheAuthorizedPartyToBeThisClient() throws {
        var claims = Self.claims(exp: 1000, iat: 900)
        claims["aud"] = .array([.string("flag-console"), .string("other")])
        #expect(throws: OIDCFailure.self) { try Self.check(try Self.token(claims), at: 950) }
        claims["azp"] = .string("other")
        #expect(throws: OIDCFailure.self) { try Self.check(try Self.token(claims), at: 950) }
        claims["azp"] = .string("flag-console")
        try Self.check(try Self.token(claims), at: 950)
    }

    @Test
    func aTokenWithoutTimesIsRefused() throws {
        var claims = Self.claims(exp: 1000, iat: 900)
        claims["exp"] = nil
        #expect(throws: OIDCFailure.self) { try Self.check(try Self.token(claims), at: 950) }
        claims = Self.claims(exp: 1000, iat: 900)
        claims["iat"] = .string("900")
        #expect(throws: OIDCFailure.self) { try Self.check(try Self.token(claims), at: 950) }
    }

    @Test
    func oversizedAndMalformedTokensAreRefusedBeforeAnyKeyIsRead() {
        #expect(throws: OIDCFailure.self) { try IDToken(compact: String(repeating: "a", count: IDToken.maximumBytes + 1)) }
        #expect(throws: OIDCFailure.self) { try IDToken(compact: "a.b") }
        #expect(throws: OIDCFailure.self) { try IDToken(compact: "!!.e30.c2ln") }
        let hs256 = Data(#"{"alg":"HS256"}"#.utf8).base64URLEncoded
        #expect(throws: OIDCFailure.self) { try IDToken(compact: hs256 + ".e30.c2ln") }
    }
}
