@testable import FlagServer
import Foundation
import Synchronization
import Testing

/// A real user keeps signing in while strangers guess: names that do not exist cost no bcrypt and
/// none of the server's total of checks, and a browser that signed in to an account before has a
/// budget of its own that strangers guessing at the account cannot spend.
struct SignInDeviceTests {
    /// Accounts over a store of their own with alice (`"alice password"`), closed after `body`.
    static func withAccounts(_ body: (ConsoleAccounts) async throws -> Void) async throws {
        let store = try await SQLiteFlagStore(path: nil)
        do {
            try await store.migrate()
            let accounts = ConsoleAccounts(store: store, passwordCost: 4)
            try await accounts.createUser(name: "alice", password: "alice password", role: .editor)
            try await body(accounts)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test
    func attemptsAtNamesThatDoNotExistCostNoBcryptNorTheServersTotal() async throws {
        try await Self.withAccounts { accounts in
            let admitted = Mutex(0)
            let admit: () -> Int? = {
                admitted.withLock { $0 += 1 }
                return nil
            }
            // A wrong password for alice is checked (and times the checks).
            guard case .wrong = try await accounts.signIn(name: "alice", password: "wrong password", knownBrowser: false, admitCheck: admit) else {
                Issue.record("a wrong password signed in")
                return
            }
            let checks = accounts.passwordChecker.checksBegun
            #expect(admitted.withLock { $0 } == 1)
            for index in 0..<50 {
                guard case .wrong = try await accounts.signIn(name: "guess-\(index)", password: "anything at all", knownBrowser: false, admitCheck: admit) else {
                    Issue.record("an unknown name signed in")
                    return
                }
            }
            #expect(accounts.passwordChecker.checksBegun == checks)
            #expect(admitted.withLock { $0 } == 1)
            // The real user still signs in.
            guard case .signedIn(let session) = try await accounts.signIn(name: "alice", password: "alice password", knownBrowser: false, admitCheck: admit) else {
                Issue.record("alice could not sign in")
                return
            }
            #expect(session.user.name == "alice")
        }
    }

    @Test
    func theServersTotalRefusesTheChecksOfKnownNamesWithRetryAfter() async throws {
        try await Self.withAccounts { accounts in
            guard case .limited(let seconds) = try await accounts.signIn(name: "alice", password: "alice password", knownBrowser: false, admitCheck: { 7 }) else {
                Issue.record("a check past the total ran")
                return
            }
            #expect(seconds == 7)
            #expect(accounts.passwordChecker.checksBegun == 0)
        }
    }

    @Test
    func aBrowserThatSignedInBeforeSignsInWhileStrangersSpentTheAccountsAttempts() async throws {
        var options = ConsoleOptions()
        options.signInsPerAccountPerMinute = 3
        try await TestServer.withConsole(options: options) { server in
            try await server.consoleUser("alice", role: .editor)
            let browser = ConsoleClient(server)
            let first = try await browser.signIn("alice")
            #expect(first.status == 303 || first.status == 302, "\(first.body)")
            let device = try #require(first.setCookie(SignInDevices.cookieName))
            #expect(device.contains("HttpOnly") && device.contains("SameSite=Strict"), "\(device)")
            // Strangers spend the attempts alice's first sign-in left.
            let stranger = ConsoleClient(server)
            for _ in 0..<2 {
                #expect(try await stranger.signIn("alice", password: "a wrong guess!").status == 401)
            }
            #expect(try await stranger.signIn("alice").status == 429)
            // alice, in the browser she signed in from before, is not locked out.
            let again = try await browser.signIn("alice")
            #expect(again.status == 303 || again.status == 302, "\(again.body)")
            #expect(again.location == "/console/flags")
            // The device cookie is alice's only: for another account it is a stranger's.
            try await server.consoleUser("bob", role: .viewer)
            for _ in 0..<3 { _ = try await stranger.signIn("bob", password: "a wrong guess!") }
            #expect(try await browser.signIn("bob").status == 429)
        }
    }

    @Test
    func aDeviceTokenIsRecognisedForItsAccountUntilItExpires() {
        let clock = Mutex(0.0)
        let devices = SignInDevices(lifetime: 100, capacity: 2, now: { clock.withLock { $0 } })
        let token = devices.issue(account: "alice")
        #expect(devices.recognise(token, account: "alice") != nil)
        #expect(devices.recognise(token, account: "bob") == nil)
        #expect(devices.recognise(String(repeating: "0", count: 64), account: "alice") == nil)
        #expect(devices.recognise(nil, account: "alice") == nil)
        // Past capacity the oldest is dropped.
        let second = devices.issue(account: "bob")
        let third = devices.issue(account: "carol")
        #expect(devices.recognise(token, account: "alice") == nil)
        #expect(devices.recognise(second, account: "bob") != nil)
        clock.withLock { $0 = 101 }
        #expect(devices.recognise(third, account: "carol") == nil)
    }
}
