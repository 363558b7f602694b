import ArgumentParser
import FlagServer

/// `flag-server serve`'s options for console sign-in through an OpenID provider (see
/// ``OIDCConfiguration`` for the variables and defaults).
struct SingleSignOnOptions: ParsableArguments {
    @Option(help: "OpenID provider's issuer URL; turns on console single sign-on (FLAG_SERVER_OIDC_ISSUER).")
    var oidcIssuer: String?
    @Option(help: "Client id registered at the provider (FLAG_SERVER_OIDC_CLIENT_ID).")
    var oidcClientId: String?
    @Option(help: "File holding the client secret (FLAG_SERVER_OIDC_CLIENT_SECRET_FILE, or the secret itself in FLAG_SERVER_OIDC_CLIENT_SECRET).")
    var oidcClientSecretFile: String?
    @Option(help: "The console's callback URL registered at the provider, https://<host>/console/login/sso/callback (FLAG_SERVER_OIDC_REDIRECT_URL).")
    var oidcRedirectUrl: String?
    @Option(help: "Scopes asked for (FLAG_SERVER_OIDC_SCOPES, default \"openid profile email\").")
    var oidcScopes: String?
    @Option(help: "Claim naming the console user (FLAG_SERVER_OIDC_USERNAME_CLAIM, default preferred_username).")
    var oidcUsernameClaim: String?
    @Option(help: "Claim the role mapping reads (FLAG_SERVER_OIDC_ROLE_CLAIM, default groups).")
    var oidcRoleClaim: String?
    @Option(help: "Claim values and roles, flag-admins=admin,flag-editors=editor (FLAG_SERVER_OIDC_ROLE_MAPPING).")
    var oidcRoleMapping: String?
    @Option(help: "Role when no mapping matches: refuse, viewer, editor or admin (FLAG_SERVER_OIDC_DEFAULT_ROLE, default refuse).")
    var oidcDefaultRole: String?
    @Option(help: "Provider name on the sign-in button (FLAG_SERVER_OIDC_NAME, default \"single sign-on\").")
    var oidcName: String?
    @Flag(
        inversion: .prefixedNo,
        help: "Whether console users may also sign in with a password (FLAG_SERVER_PASSWORD_SIGN_IN, default true; off needs an issuer).")
    var passwordSignIn: Bool?

    func configuration(environment: [String: String]) throws(ConfigurationError) -> OIDCConfiguration? {
        try OIDCConfiguration.resolve(
            issuer: oidcIssuer, clientID: oidcClientId, clientSecretFile: oidcClientSecretFile, redirectURL: oidcRedirectUrl,
            scopes: oidcScopes, usernameClaim: oidcUsernameClaim, roleClaim: oidcRoleClaim, roleMapping: oidcRoleMapping,
            defaultRole: oidcDefaultRole, name: oidcName, passwordSignIn: passwordSignIn, environment: environment)
    }
}
