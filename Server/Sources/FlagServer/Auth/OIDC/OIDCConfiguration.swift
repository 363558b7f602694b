import FlagServerModel
public import Foundation

/// Console sign-in with an OpenID Connect provider (authorization code flow with PKCE).
///
/// | option | variable | default |
/// |---|---|---|
/// | `--oidc-issuer` | `FLAG_SERVER_OIDC_ISSUER` | none: single sign-on off |
/// | `--oidc-client-id` | `FLAG_SERVER_OIDC_CLIENT_ID` | required with an issuer |
/// | `--oidc-client-secret-file` | `FLAG_SERVER_OIDC_CLIENT_SECRET_FILE` or `FLAG_SERVER_OIDC_CLIENT_SECRET` | none (a public client) |
/// | `--oidc-redirect-url` | `FLAG_SERVER_OIDC_REDIRECT_URL` | required: `https://<console host>/console/login/sso/callback` |
/// | `--oidc-scopes` | `FLAG_SERVER_OIDC_SCOPES` | `openid profile email` |
/// | `--oidc-username-claim` | `FLAG_SERVER_OIDC_USERNAME_CLAIM` | `preferred_username` |
/// | `--oidc-role-claim` | `FLAG_SERVER_OIDC_ROLE_CLAIM` | `groups` |
/// | `--oidc-role-mapping` | `FLAG_SERVER_OIDC_ROLE_MAPPING` | none: `flag-admins=admin,flag-editors=editor` |
/// | `--oidc-default-role` | `FLAG_SERVER_OIDC_DEFAULT_ROLE` | `refuse`; or `viewer`, `editor`, `admin` |
/// | `--oidc-name` | `FLAG_SERVER_OIDC_NAME` | `single sign-on` (the sign-in button says "Sign in with …") |
/// | `--password-sign-in` / `--no-password-sign-in` | `FLAG_SERVER_PASSWORD_SIGN_IN` | `true`; `false` needs an issuer |
public struct OIDCConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// The provider's issuer identifier, without a trailing `/`: `https://id.example.com/realms/main`.
    public var issuer: String
    /// The console's client id at the provider.
    public var clientID: String
    /// Sent only to the issuer's own token endpoint; never logged or described.
    public var clientSecret: String?
    /// Where the provider sends the browser back: the console's `/console/login/sso/callback`.
    public var redirectURL: String
    /// The scopes asked for; always includes `openid`.
    public var scopes: [String]
    /// The claim whose value is the console user name (a user is created at the first sign-in).
    public var usernameClaim: String
    /// The claim (a string or an array of strings) that ``roleMapping`` reads.
    public var roleClaim: String
    /// Claim values and the role each grants; the highest role granted wins.
    public var roleMapping: [String: ConsoleRole]
    /// The role of a person no mapping matches; `nil` refuses them.
    public var defaultRole: ConsoleRole?
    /// Whether the console still accepts local passwords.
    public var allowsPasswords: Bool
    /// The provider's name on the sign-in page.
    public var displayName: String
    /// Tolerated difference between the provider's clock and the server's, applied to `exp` and
    /// `iat` (60 s).
    public var clockSkew: TimeInterval = 60
    /// The shortest time between two JWKS fetches caused by an unknown key id (30 s), so that
    /// tokens naming made-up keys cannot make the server hammer the provider.
    public var keyRefetchInterval: TimeInterval = 30
    /// How long discovery metadata and keys are used before they are fetched again (1 h).
    public var cacheLifetime: TimeInterval = 3600
    /// The longest wait for any request to the provider (10 s).
    public var requestTimeout: TimeInterval = 10
    /// The largest response read from the provider (256 KiB).
    public var maximumResponseBytes = 256 * 1024
    /// How long a started sign-in may take at the provider before its `state` expires (10 min).
    public var pendingLifetime: TimeInterval = 600
    /// Sign-ins started and not finished at once; more are refused until some expire.
    public var maximumPending = 10_000

    /// The console's path the provider redirects back to.
    public static let callbackPath = "/console/login/sso/callback"

    /// Checks and keeps the settings; a trailing `/` of `issuer` is dropped.
    /// - Throws: ``ConfigurationError`` naming the setting: an issuer that is not an absolute `https`
    ///   URL (plain `http` only on a loopback host), an empty client id, client secret or claim, scopes
    ///   without `openid`, or a redirect URL that is not the console's callback.
    public init(
        issuer: String, clientID: String, clientSecret: String?, redirectURL: String, scopes: [String] = ["openid", "profile", "email"],
        usernameClaim: String = "preferred_username", roleClaim: String = "groups", roleMapping: [String: ConsoleRole] = [:],
        defaultRole: ConsoleRole? = nil, allowsPasswords: Bool = true, displayName: String = "single sign-on"
    ) throws(ConfigurationError) {
        var issuer = issuer
        while issuer.hasSuffix("/") { issuer.removeLast() }
        guard let issuerURL = URL(string: issuer), let host = issuerURL.host, !host.isEmpty,
            issuerURL.query == nil, issuerURL.fragment == nil
        else { throw ConfigurationError("OIDC issuer \"\(issuer)\" is not an absolute URL without query: use https://id.example.com") }
        guard issuerURL.scheme == "https" || (issuerURL.scheme == "http" && Self.isLoopback(host)) else {
            throw ConfigurationError("OIDC issuer \"\(issuer)\" must use https (plain http only on 127.0.0.1, ::1 or localhost)")
        }
        guard !clientID.isEmpty else { throw ConfigurationError("OIDC client id is missing: set FLAG_SERVER_OIDC_CLIENT_ID") }
        guard let redirect = URL(string: redirectURL), redirect.scheme == "https" || redirect.scheme == "http",
            redirect.host?.isEmpty == false, redirect.path == Self.callbackPath, redirect.query == nil
        else {
            throw ConfigurationError(
                "OIDC redirect URL \"\(redirectURL)\" must be the console's callback, such as https://flags.example.com\(Self.callbackPath)")
        }
        guard scopes.contains("openid") else { throw ConfigurationError("OIDC scopes must include openid, got \"\(scopes.joined(separator: " "))\"") }
        guard !usernameClaim.isEmpty, !roleClaim.isEmpty else { throw ConfigurationError("OIDC username and role claims must not be empty") }
        if let clientSecret, clientSecret.isEmpty { throw ConfigurationError("OIDC client secret is empty") }
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.redirectURL = redirectURL
        self.scopes = scopes
        self.usernameClaim = usernameClaim
        self.roleClaim = roleClaim
        self.roleMapping = roleMapping
        self.defaultRole = defaultRole
        self.allowsPasswords = allowsPasswords
        self.displayName = displayName
    }

    /// Resolves options (`nil` when not given) against `environment`; `nil` without an issuer.
    ///
    /// - Throws: ``ConfigurationError`` naming the option or variable and the bad value, also for
    ///   `--no-password-sign-in` without an issuer (nobody could sign in).
    public static func resolve(
        issuer: String? = nil, clientID: String? = nil, clientSecretFile: String? = nil, redirectURL: String? = nil,
        scopes: String? = nil, usernameClaim: String? = nil, roleClaim: String? = nil, roleMapping: String? = nil,
        defaultRole: String? = nil, name: String? = nil, passwordSignIn: Bool? = nil, environment: [String: String]
    ) throws(ConfigurationError) -> OIDCConfiguration? {
        let passwords: Bool
        if let passwordSignIn {
            passwords = passwordSignIn
        } else if let text = environment["FLAG_SERVER_PASSWORD_SIGN_IN"] {
            switch text.lowercased() {
            case "1", "true", "yes": passwords = true
            case "0", "false", "no": passwords = false
            default: throw ConfigurationError("FLAG_SERVER_PASSWORD_SIGN_IN=\(text) is not true or false")
            }
        } else {
            passwords = true
        }
        guard let issuer = issuer ?? environment["FLAG_SERVER_OIDC_ISSUER"], !issuer.isEmpty else {
            guard passwords else {
                throw ConfigurationError("password sign-in can be turned off only with single sign-on: set FLAG_SERVER_OIDC_ISSUER")
            }
            return nil
        }
        var secret: String?
        if let path = clientSecretFile ?? environment["FLAG_SERVER_OIDC_CLIENT_SECRET_FILE"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path), data.count <= 4096, let text = String(data: data, encoding: .utf8)
            else { throw ConfigurationError("OIDC client secret file \"\(path)\" cannot be read (or is over 4 KiB)") }
            secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let text = environment["FLAG_SERVER_OIDC_CLIENT_SECRET"], !text.isEmpty {
            secret = text
        }
        let roleText = defaultRole ?? environment["FLAG_SERVER_OIDC_DEFAULT_ROLE"] ?? "refuse"
        let fallback: ConsoleRole?
        if roleText == "refuse" {
            fallback = nil
        } else if let role = ConsoleRole(rawValue: roleText) {
            fallback = role
        } else {
            throw ConfigurationError("OIDC default role \"\(roleText)\" is not refuse, viewer, editor or admin")
        }
        return try OIDCConfiguration(
            issuer: issuer, clientID: clientID ?? environment["FLAG_SERVER_OIDC_CLIENT_ID"] ?? "", clientSecret: secret,
            redirectURL: redirectURL ?? environment["FLAG_SERVER_OIDC_REDIRECT_URL"] ?? "",
            scopes: (scopes ?? environment["FLAG_SERVER_OIDC_SCOPES"] ?? "openid profile email").split(whereSeparator: { $0 == " " || $0 == "," })
                .map(String.init),
            usernameClaim: usernameClaim ?? environment["FLAG_SERVER_OIDC_USERNAME_CLAIM"] ?? "preferred_username",
            roleClaim: roleClaim ?? environment["FLAG_SERVER_OIDC_ROLE_CLAIM"] ?? "groups",
            roleMapping: try parseRoleMapping(roleMapping ?? environment["FLAG_SERVER_OIDC_ROLE_MAPPING"] ?? ""),
            defaultRole: fallback, allowsPasswords: passwords,
            displayName: name ?? environment["FLAG_SERVER_OIDC_NAME"] ?? "single sign-on")
    }

    /// `flag-admins=admin,flag-editors=editor` → the mapping.
    static func parseRoleMapping(_ text: String) throws(ConfigurationError) -> [String: ConsoleRole] {
        var mapping: [String: ConsoleRole] = [:]
        for item in text.split(separator: ",") where !item.trimmingCharacters(in: .whitespaces).isEmpty {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let role = ConsoleRole(rawValue: parts[1]) else {
                throw ConfigurationError(
                    "OIDC role mapping \"\(item)\" is not value=role with role viewer, editor or admin (e.g. flag-admins=admin,flag-editors=editor)")
            }
            mapping[parts[0]] = role
        }
        return mapping
    }

    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
    }

    /// The role granted by a role claim's value (a string or strings): the highest mapped one,
    /// else ``defaultRole``.
    func role(claimValues: [String]) -> ConsoleRole? {
        claimValues.compactMap { roleMapping[$0] }.max() ?? defaultRole
    }

    /// The settings with the client secret printed as `<REDACTED>`.
    public var description: String {
        "OIDCConfiguration(issuer: \(issuer), clientID: \(clientID), clientSecret: \(clientSecret == nil ? "nil" : "<REDACTED>"), redirectURL: \(redirectURL), roleClaim: \(roleClaim), allowsPasswords: \(allowsPasswords))"
    }
}
