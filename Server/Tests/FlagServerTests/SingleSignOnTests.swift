import FlagEvaluation
@testable import FlagServer
import Foundation
import Logging
import NIOHTTP1
import Testing

/// Console sign-in through a real OpenID provider (`scripts/tools/oidc_provider.py`, Authlib) started
/// for each test; skipped only outside CI when python3 or Authlib is missing.
@Suite(.enabled(if: OIDCTestProvider.isAvailable || OIDCTestProvider.isRequired, OIDCTestProvider.unavailableNote))
struct SingleSignOnTests {
    /// A successful sign-in: the page that takes the browser on, and a session cookie.
    static func expectSignedIn(_ reply: ConsoleClient.Reply, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 200, "\(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.body.contains("url=/console/flags"), sourceLocation: sourceLocation)
        #expect(reply.setCookie(ConsoleRoutes.sessionCookie)?.contains("SameSite=Strict") == true, sourceLocation: sourceLocation)
    }

    /// A refused sign-in: a page that says so, no session, and nothing of the token on it.
    static func expectRefused(
        _ reply: ConsoleClient.Reply, status: Int, saying text: String, _ client: ConsoleClient,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(reply.status == status, "\(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.body.contains(text), "\(reply.body)", sourceLocation: sourceLocation)
        #expect(reply.setCookie(ConsoleRoutes.sessionCookie) == nil, sourceLocation: sourceLocation)
        #expect(client.sessionID == nil, sourceLocation: sourceLocation)
        #expect(!reply.body.contains("eyJ"), "a JWT on the page", sourceLocation: sourceLocation)
        #expect(!reply.body.contains("Error("), "an error dump on the page", sourceLocation: sourceLocation)
    }

    @Test
    func signInCreatesTheUserWithTheRoleOfItsGroupAndFollowsTheClaimLater() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let alice = ConsoleClient(server)
                Self.expectSignedIn(try await alice.signIn(at: provider, user: "alice", groups: "ops,flag-admins"))
                let flags = try await alice.get("/console/flags")
                #expect(flags.status == 200)
                #expect(flags.body.contains("alice"))
                // Admin from the claim: the users page is hers, and lists her.
                let users = try await alice.get("/console/users")
                #expect(users.status == 200)
                #expect(users.body.contains(#"id="user-alice""#))
                #expect(users.body.contains(#"id="sso-users-note""#))
                let accounts = try #require(server.server.consoleAccounts)
                var stored = try #require(try await accounts.users().first { $0.name == "alice" })
                #expect(stored.role == .admin)
                // Created by single sign-on, in the users' audit.
                let audit = try await accounts.store.consoleUserAudit(limit: 10)
                #expect(audit.contains { $0.key == "alice" && $0.actor == ConsoleAccounts.singleSignOnActor })

                // Bob's group maps to editor.
                let bob = ConsoleClient(server)
                Self.expectSignedIn(try await bob.signIn(at: provider, user: "bob", groups: "flag-editors"))
                #expect(try await accounts.users().first { $0.name == "bob" }?.role == .editor)
                #expect(try await bob.get("/console/users").status == 403)

                // Moved to the editors' group at the provider: an editor at the next sign-in.
                let again = ConsoleClient(server)
                Self.expectSignedIn(try await again.signIn(at: provider, user: "alice", groups: "flag-editors"))
                stored = try #require(try await accounts.users().first { $0.name == "alice" })
                #expect(stored.role == .editor)
                #expect(try await accounts.users().filter { $0.name == "alice" }.count == 1)
            }
        }
    }

    @Test
    func anES256TokenIsAccepted() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                Self.expectSignedIn(try await ConsoleClient(server).signIn(at: provider, user: "erin", groups: "flag-admins", misbehave: "es256"))
            }
        }
    }

    /// Every ID token the console must refuse, and what the log says about it.
    static let badTokens: [(misbehave: String, logged: String)] = [
        ("wrong_audience", "aud does not name this client"),
        ("extra_audience_no_azp", "several audiences and no azp"),
        ("expired", "expired"),
        ("issued_in_future", "iat is in the future"),
        ("forged_signature", "signature does not verify"),
        ("forged_known_kid", "signature does not verify"),
        ("wrong_nonce", "nonce is not the one of this sign-in"),
        ("no_nonce", "nonce is missing"),
        ("wrong_issuer", "iss is not the configured issuer"),
        ("alg_none", "algorithm \"none\" is not RS256 or ES256"),
    ]

    @Test(arguments: badTokens)
    func aBadIDTokenIsRefusedWithAPageAndALoggedReason(misbehave: String, logged: String) async throws {
        let recorded = SecretRedactionTests.RecordedLines()
        let logger = Logger(label: "test") { _ in SecretRedactionTests.RecordingHandler(recorded: recorded) }
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration(), logger: logger) { server in
                let client = ConsoleClient(server)
                let callback = try await client.authorize(at: provider, user: "mallory", groups: "flag-admins", misbehave: misbehave)
                let reply = try await client.get(callback)
                Self.expectRefused(reply, status: 401, saying: "could not be verified", client)
                #expect(try await server.server.consoleAccounts?.users().contains { $0.name == "mallory" } == false)
                #expect(recorded.text.contains("single sign-on refused"))
                #expect(recorded.text.contains(logged), "\(recorded.text)")
                // Neither the client secret nor the code reaches the log.
                #expect(!recorded.text.contains(OIDCTestProvider.clientSecret))
                let code = try #require(ConsoleForm(parsing: String(callback.split(separator: "?")[1]))["code"])
                #expect(!recorded.text.contains(code))
            }
        }
    }

    @Test
    func aReplayedStateIsRefused() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let client = ConsoleClient(server)
                let callback = try await client.authorize(at: provider, user: "alice", groups: "flag-admins")
                Self.expectSignedIn(try await client.get(callback))
                // The same answer again (the binding cookie is gone; put it back to replay fully).
                let replayer = ConsoleClient(server)
                replayer.cookies = client.cookies.filter { $0.key != ConsoleRoutes.sessionCookie }
                Self.expectRefused(try await replayer.get(callback), status: 400, saying: "already used or has expired", replayer)
            }
        }
    }

    @Test
    func aStateStartedInAnotherBrowserIsRefusedAndUsedUp() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let victim = ConsoleClient(server)
                let callback = try await victim.authorize(at: provider, user: "mallory", groups: "flag-admins")
                // Another browser (no binding cookie, or another one) presents the answer.
                let other = ConsoleClient(server)
                _ = try await other.get("/console/login/sso")
                Self.expectRefused(try await other.get(callback), status: 400, saying: "started in another browser", other)
                // The state is spent: even the right browser cannot use it afterwards.
                Self.expectRefused(try await victim.get(callback), status: 400, saying: "already used or has expired", victim)
            }
        }
    }

    /// Every start holds a pending sign-in until it returns or expires, and their number is bounded
    /// in total: one client starting sign-ins in a loop is refused before it takes them all.
    @Test
    func startsFromOneAddressAreLimitedWithoutLockingOutOthers() async throws {
        try await OIDCTestProvider.with { provider in
            var options = ConsoleOptions()
            options.signInsPerAddressPerMinute = 3
            try await TestServer.withSingleSignOn(try provider.configuration(), options: options) { server in
                let client = ConsoleClient(server)
                for _ in 0..<3 { #expect(try await client.get("/console/login/sso").status == 303) }
                let refused = try await client.get("/console/login/sso")
                #expect(refused.status == 429)
                #expect(refused.headers.first(name: "Retry-After") != nil)
            }
        }
    }

    @Test
    func aDisabledUserIsRefusedDespiteAValidLogin() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let accounts = try #require(server.server.consoleAccounts)
                try await accounts.createUser(name: "carol", password: "carol password", role: .editor)
                try await accounts.updateUser("carol", disabled: true, actor: "test")
                let client = ConsoleClient(server)
                let reply = try await client.signIn(at: provider, user: "carol", groups: "flag-admins")
                Self.expectRefused(reply, status: 403, saying: "is disabled", client)
                // Refused before anything changed: still a disabled editor.
                let carol = try #require(try await accounts.users().first { $0.name == "carol" })
                #expect(carol.role == .editor)
                #expect(carol.disabledAt != nil)
            }
        }
    }

    @Test
    func aPersonWithoutAMappedGroupIsRefusedOrGetsTheDefaultRole() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let client = ConsoleClient(server)
                Self.expectRefused(
                    try await client.signIn(at: provider, user: "dave", groups: "ops"), status: 403, saying: "gives you no role", client)
                #expect(try await server.server.consoleAccounts?.users().contains { $0.name == "dave" } == false)
            }
            try await TestServer.withSingleSignOn(try provider.configuration(defaultRole: .viewer)) { server in
                Self.expectSignedIn(try await ConsoleClient(server).signIn(at: provider, user: "dave", groups: "ops"))
                #expect(try await server.server.consoleAccounts?.users().first { $0.name == "dave" }?.role == .viewer)
            }
        }
    }

    @Test
    func theProvidersRefusalIsShownAndSignsNobodyIn() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let client = ConsoleClient(server)
                let callback = try await client.authorize(at: provider, user: "alice", groups: "flag-admins", deny: true)
                Self.expectRefused(try await client.get(callback), status: 403, saying: "did not sign you in (access_denied)", client)
            }
        }
    }

    @Test
    func passwordSignInIsOfferedAndWorksBesideSingleSignOn() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                try await server.consoleUser("alice", role: .editor)
                let client = ConsoleClient(server)
                let page = try await client.get("/console/login")
                #expect(page.body.contains(#"href="/console/login/sso""#))
                #expect(page.body.contains("Sign in with Test IdP"))
                #expect(page.body.contains(#"name="password""#))
                #expect(try await client.signIn("alice").status == 303)
                #expect(client.sessionID != nil)
            }
        }
    }

    @Test
    func singleSignOnOnlyHidesAndRefusesPasswordSignIn() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration(passwords: false)) { server in
                // No first `admin` with a password was created (or printed): it could not sign in.
                #expect(try await server.server.consoleAccounts?.store.consoleUsers().isEmpty == true)
                try await server.consoleUser("alice", role: .admin)
                let client = ConsoleClient(server)
                let page = try await client.get("/console/login")
                #expect(page.body.contains(#"href="/console/login/sso""#))
                #expect(!page.body.contains(#"name="password""#))
                let token = try #require(client.cookies[ConsoleRoutes.loginCookie])
                let reply = try await client.post("/console/login", [("name", "alice"), ("password", "alice password")], csrf: token)
                #expect(reply.status == 403)
                #expect(reply.body.contains("Password sign-in is turned off"))
                #expect(client.sessionID == nil)
                // The same person gets in through the provider.
                Self.expectSignedIn(try await client.signIn(at: provider, user: "alice", groups: "flag-admins"))
            }
        }
    }

    @Test
    func keysAreCachedAndARotatedKeyIsFetched() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration(keyRefetchInterval: 0)) { server in
                Self.expectSignedIn(try await ConsoleClient(server).signIn(at: provider, user: "alice", groups: "flag-admins"))
                Self.expectSignedIn(try await ConsoleClient(server).signIn(at: provider, user: "alice", groups: "flag-admins"))
                #expect(try await provider.keySetFetches() == 1)
                // The provider signs with a new key: its unknown kid makes the console fetch the keys again.
                Self.expectSignedIn(
                    try await ConsoleClient(server).signIn(at: provider, user: "alice", groups: "flag-admins", misbehave: "rotate_key"))
                #expect(try await provider.keySetFetches() == 2)
            }
        }
    }

    @Test
    func unknownKeyIDsDoNotFetchTheKeysMoreOftenThanTheInterval() async throws {
        try await OIDCTestProvider.with { provider in
            try await TestServer.withSingleSignOn(try provider.configuration(keyRefetchInterval: 3600)) { server in
                Self.expectSignedIn(try await ConsoleClient(server).signIn(at: provider, user: "alice", groups: "flag-admins"))
                for _ in 0..<3 {
                    let client = ConsoleClient(server)
                    let reply = try await client.signIn(at: provider, user: "mallory", groups: "flag-admins", misbehave: "forged_signature")
                    Self.expectRefused(reply, status: 401, saying: "could not be verified", client)
                }
                #expect(try await provider.keySetFetches() == 1)
            }
        }
    }

    @Test
    func aTokenEndpointOnAnotherOriginIsNeverSentTheSecret() async throws {
        try await OIDCTestProvider.with(["--token-endpoint", "http://127.0.0.1:9/token"]) { provider in
            try await TestServer.withSingleSignOn(try provider.configuration()) { server in
                let client = ConsoleClient(server)
                let reply = try await client.get("/console/login/sso")
                Self.expectRefused(reply, status: 502, saying: "identity provider cannot be reached", client)
                #expect(reply.location == nil)
            }
        }
    }

    @Test
    func aProviderThatStallsOrAnswersTooMuchIsCutOff() async throws {
        try await OIDCTestProvider.with { provider in
            var configuration = try provider.configuration()
            // The provider sends its headers and then nothing for 60 s; the console gives up after 1 s.
            configuration.requestTimeout = 1
            try await TestServer.withSingleSignOn(configuration) { server in
                let client = ConsoleClient(server)
                let stalled = try await client.signIn(at: provider, user: "alice", groups: "flag-admins", misbehave: "stall_token")
                Self.expectRefused(stalled, status: 502, saying: "identity provider cannot be reached", client)
                let huge = try await client.signIn(at: provider, user: "alice", groups: "flag-admins", misbehave: "huge_token_response")
                Self.expectRefused(huge, status: 502, saying: "identity provider cannot be reached", client)
                // The same provider, behaving, still works.
                Self.expectSignedIn(try await client.signIn(at: provider, user: "alice", groups: "flag-admins"))
            }
        }
    }

    @Test
    func withoutSingleSignOnTheRoutesAreAbsent() async throws {
        try await TestServer.withConsole { server in
            let client = ConsoleClient(server)
            let start = try await client.get("/console/login/sso")
            #expect(start.status == 404)
            let page = try await client.get("/console/login")
            #expect(!page.body.contains("/console/login/sso"))
            #expect(page.body.contains(#"name="password""#))
            try await server.consoleUser("alice", role: .admin)
            try await client.signIn("alice")
            let users = try await client.get("/console/users")
            #expect(users.status == 200)
            #expect(!users.body.contains("sso-users-note"))
        }
    }
}
