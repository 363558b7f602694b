import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Synchronization
import Testing

/// The console's security over a real server on loopback: CSRF, roles, escaping, sign-in,
/// sign-out and cookie attributes.
struct ConsoleSecurityTests {
    static let killPath = "/console/flags/checkout/environments/production/switch"
    static let kill = [("enabled", "false"), ("reason", "incident 42")]

    static func isOn(_ server: TestServer) async -> Bool? {
        await server.server.admin.state.environments["production"]?.settings["checkout"]?.enabled
    }

    @Test
    func aFormWithoutTheRightCSRFTokenIsRefused() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            #expect(try await client.signIn("erin").status == 303)

            let missing = try await client.post(Self.killPath, Self.kill)
            #expect(missing.status == 403)
            #expect(missing.body.contains("CSRF token is missing or wrong"))
            let wrong = try await client.post(Self.killPath, Self.kill, csrf: String(repeating: "0", count: 64))
            #expect(wrong.status == 403)
            // Another session's token is wrong too.
            let other = ConsoleClient(server)
            try await other.signIn("erin")
            #expect(try await client.post(Self.killPath, Self.kill, csrf: try await other.csrf()).status == 403)
            // The JSON calls need the header.
            let api = try await client.send(
                .POST, "/console/api/environments/production/flags/checkout/validate", form: [("targeting", "{}")])
            #expect(api.status == 403)
            #expect(await Self.isOn(server) == true)

            // The page's own token works.
            let done = try await client.post(Self.killPath, Self.kill, csrf: try await client.csrf())
            #expect(done.status == 303)
            #expect(await Self.isOn(server) == false)
        }
    }

    @Test
    func theSignInFormNeedsItsCSRFToken() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            let reply = try await client.post("/console/login", [("name", "erin"), ("password", "erin password")], csrf: "forged")
            #expect(reply.status == 403)
            #expect(reply.setCookie(ConsoleRoutes.sessionCookie) == nil)
        }
    }

    @Test
    func aViewerSessionCannotChangeAnything() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("vera", role: .viewer)
            let client = ConsoleClient(server)
            #expect(try await client.signIn("vera").status == 303)
            let csrf = try await client.csrf()

            let killed = try await client.post(Self.killPath, Self.kill, csrf: csrf)
            #expect(killed.status == 403)
            #expect(killed.body.contains("Your role (viewer) cannot change anything here"))
            let settings = try await client.post(
                "/console/flags/checkout/environments/production/settings",
                [("enabled", "on"), ("defaultVariant", "off"), ("targeting", ""), ("action", "save")], csrf: csrf)
            #expect(settings.status == 403)
            let rollout = try await client.post(
                "/console/flags/checkout/environments/production/rollout",
                [("percent.on", "10"), ("percent.off", "90"), ("action", "save")], csrf: csrf)
            #expect(rollout.status == 403)
            let created = try await client.post(
                "/console/new-flag", [("key", "sneaky"), ("type", "boolean"), ("variants", #"{"on": true}"#)], csrf: csrf)
            #expect(created.status == 403)
            let reverted = try await client.post(
                "/console/history/revert", [("environment", "production"), ("key", "checkout"), ("revision", "1")], csrf: csrf)
            #expect(reverted.status == 403)

            let state = await server.server.admin.state
            #expect(state.environments["production"]?.settings["checkout"] == FlagSettings(enabled: true, defaultVariant: "on"))
            #expect(state.flags["sneaky"] == nil)

            // The pages say so instead of offering buttons that fail.
            let page = try await client.get("/console/flags")
            #expect(page.body.contains("you can see everything and change nothing"))
            #expect(page.body.contains(
                #"<button type="button" class="switch" role="switch" aria-checked="true" disabled aria-label="checkout in production" aria-describedby="viewer-note" title="Viewers cannot change flags">"#))
            #expect(!page.body.contains("/switch\""))
            let flag = try await client.get("/console/flags/checkout")
            #expect(flag.status == 200)
            #expect(!flag.body.contains(#"id="save-rollout""#))
        }
    }

    @Test
    func htmlInADescriptionIsEscapedNeverExecuted() async throws {
        try await TestServer.withConsole { server in
            let description = #"<script>alert("x")</script><img src=x onerror=alert(1)>"#
            let body = JSONValue.object([
                "type": "boolean", "variants": ["on": true, "off": false],
                "metadata": ["description": .string(description), "displayName": "<b>bold</b>", "owner": "\"><i>o</i>"],
            ]).serialized()
            #expect(try await server.request(.PUT, "/admin/v1/flags/checkout", token: server.adminToken, body: body).status == 200)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            for path in ["/console/flags", "/console/flags/checkout", "/console/history?flag=checkout"] {
                let page = try await client.get(path)
                #expect(page.status == 200, "\(path)")
                #expect(!page.body.contains("<script>alert"), "\(path)")
                #expect(!page.body.contains("<img src=x"), "\(path)")
                #expect(!page.body.contains("<b>bold</b>"), "\(path)")
                #expect(!page.body.contains("<i>o</i>"), "\(path)")
                // No empty error or notice box on a page that has none.
                #expect(!page.body.contains(#"role="alert""#), "\(path)")
                #expect(!page.body.contains(#"role="status">"#), "\(path)")
                // Scripts run only from the server's own files, so even a slip could not execute.
                #expect(page.headers.first(name: "Content-Security-Policy")?.contains("script-src 'self'") == true)
            }
            let flag = try await client.get("/console/flags/checkout")
            #expect(flag.body.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"))
        }
    }

    @Test
    func aWrongPasswordIsRefusedWithoutSayingWhichPartWasWrong() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let wrongPassword = try await ConsoleClient(server).signIn("erin", password: "not erin's password")
            let unknownName = try await ConsoleClient(server).signIn("nobody", password: "erin password")
            for reply in [wrongPassword, unknownName] {
                #expect(reply.status == 401)
                #expect(reply.body.contains("The name or the password is wrong."))
                #expect(reply.setCookie(ConsoleRoutes.sessionCookie) == nil)
            }
            // Same page but for the CSRF token the form carries.
            func normalized(_ body: String) -> String {
                body.replacingOccurrences(of: #"name="_csrf" value="[0-9a-f]+""#, with: "", options: .regularExpression)
                    .replacingOccurrences(of: #"value="(erin|nobody)""#, with: "", options: .regularExpression)
            }
            #expect(normalized(wrongPassword.body) == normalized(unknownName.body))
            #expect(try await ConsoleClient(server).signIn("erin").status == 303)
        }
    }

    /// Behind a trusted proxy, the per-address sign-in limit counts the client the proxy names
    /// (not the proxy, which would lock every user out together); from an untrusted peer the
    /// forwarding header is ignored (a client cannot pick a fresh address for each attempt).
    @Test
    func theAddressLimitCountsTheClientATrustedProxyNames() async throws {
        var options = ConsoleOptions()
        options.signInsPerAddressPerMinute = 2
        let behind = ClientRateLimitTests.loopbackProxy
        try await TestServer.withConsole(options: options, delivery: behind) { server in
            try await server.consoleUser("erin", role: .editor)
            func attempt(from client: String) async throws -> Int {
                try await ConsoleClient(server).signIn("erin", headers: [("X-Forwarded-For", "\(client), 127.0.0.1")]).status
            }
            #expect(try await attempt(from: "10.0.0.1") == 303)
            #expect(try await attempt(from: "10.0.0.1") == 303)
            #expect(try await attempt(from: "10.0.0.1") == 429)
            #expect(try await attempt(from: "10.0.0.2") == 303)
        }
        try await TestServer.withConsole(options: options) { server in
            try await server.consoleUser("erin", role: .editor)
            for (index, expected) in [303, 303, 429].enumerated() {
                let status = try await ConsoleClient(server).signIn("erin", headers: [("X-Forwarded-For", "10.0.0.\(index)")]).status
                #expect(status == expected)
            }
        }
    }

    @Test
    func signInAttemptsAreBounded() async throws {
        try await TestServer.withConsole(options: ConsoleOptions(signInsPerSecond: 0.001, signInBurst: 2)) { server in
            try await server.consoleUser("erin", role: .editor)
            #expect(try await ConsoleClient(server).signIn("erin", password: "guess one guess").status == 401)
            #expect(try await ConsoleClient(server).signIn("erin", password: "guess two guess").status == 401)
            let limited = try await ConsoleClient(server).signIn("erin")
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "Retry-After") != nil)
            #expect(limited.body.contains("Too many sign-in attempts on this server."))
            #expect(limited.setCookie(ConsoleRoutes.sessionCookie) == nil)
        }
    }

    @Test
    func signingOutEndsTheSession() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout")
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let oldSession = try #require(client.sessionID)
            let csrf = try await client.csrf()
            #expect(try await client.get("/console/flags").status == 200)

            let out = try await client.post("/console/logout", [], csrf: csrf)
            #expect(out.status == 303)
            #expect(out.location == "/console/login")
            #expect(out.setCookie(ConsoleRoutes.sessionCookie)?.contains("Max-Age=0") == true)

            // The old cookie, replayed, opens nothing and changes nothing.
            let replay = ConsoleClient(server)
            replay.cookies[ConsoleRoutes.sessionCookie] = oldSession
            let page = try await replay.get("/console/flags")
            #expect(page.status == 303)
            #expect(page.location == "/console/login")
            #expect(try await replay.post(Self.killPath, Self.kill, csrf: csrf).status == 401)
            #expect(await Self.isOn(server) == true)
        }
    }

    @Test
    func aSessionEndsWhenItsLifetimeIsOver() async throws {
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let store = try await SQLiteFlagStore(path: nil)
        try await store.migrate()
        let accounts = ConsoleAccounts(store: store, sessionLifetime: 3600, passwordCost: 4, now: { clock.withLock { $0 } })
        try await accounts.createUser(name: "erin", password: "erin password", role: .editor)
        let session = try #require(try await accounts.signIn(name: "erin", password: "erin password"))
        clock.withLock { $0 += 3599 }
        #expect(try await accounts.user(sessionID: session.sessionID)?.name == "erin")
        clock.withLock { $0 += 1 }
        #expect(try await accounts.user(sessionID: session.sessionID) == nil)
        await store.close()
    }

    @Test
    func sessionCookiesHaveTheRightAttributes() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let plain = try await ConsoleClient(server).signIn("erin")
            let cookie = try #require(plain.setCookie(ConsoleRoutes.sessionCookie))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/"))
            #expect(cookie.contains("Max-Age=43200"))
            #expect(!cookie.contains("Secure"))

            // Behind a TLS proxy the cookie is Secure.
            let client = ConsoleClient(server)
            let page = try await client.send(.GET, "/console/login", headers: [("X-Forwarded-Proto", "https")])
            let proxied = try await client.send(
                .POST, "/console/login", form: [("_csrf", page.csrf ?? ""), ("name", "erin"), ("password", "erin password")],
                headers: [("X-Forwarded-Proto", "https")])
            #expect(proxied.setCookie(ConsoleRoutes.sessionCookie)?.contains("Secure") == true)

            // The stored session is a digest: the cookie's value is not in the store.
            let sessionID = try #require(client.sessionID)
            let store = try #require(server.server.consoleAccounts?.store)
            #expect(try await store.consoleSession(digest: sessionID) == nil)
            #expect(try await store.consoleSession(digest: TokenIssuer.digest(of: sessionID))?.user == "erin")
        }
        try await TestServer.withConsole(options: ConsoleOptions(secureCookies: true)) { server in
            try await server.consoleUser("erin", role: .editor)
            let reply = try await ConsoleClient(server).signIn("erin")
            #expect(reply.setCookie(ConsoleRoutes.sessionCookie)?.contains("Secure") == true)
            #expect(reply.setCookie(ConsoleRoutes.sessionCookie)?.contains("HttpOnly") == true)
        }
    }

    @Test
    func passwordsAreStoredAsBcryptHashesAndNeverPrinted() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let users = try #require(try await server.server.consoleAccounts?.store.consoleUsers())
            let erin = try #require(users.first { $0.name == "erin" })
            #expect(erin.passwordHash.hasPrefix("$2"))
            #expect(!erin.passwordHash.contains("erin password"))
            #expect("\(erin)" == "ConsoleUser(name: erin, role: editor, disabled: false, passwordHash: <REDACTED>)")
            #expect(!String(reflecting: users).contains("$2"))
            // The first admin was created with a generated password.
            #expect(users.contains { $0.name == "admin" && $0.role == .admin })
        }
    }
}
