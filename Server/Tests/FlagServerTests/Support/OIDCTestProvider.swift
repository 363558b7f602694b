import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// `scripts/tools/oidc_provider.py` (Authlib), a real OpenID provider started on a free loopback port
/// for the length of a test, and stopped after it (it also exits when this process does: it
/// watches its standard input).
struct OIDCTestProvider {
    /// `http://127.0.0.1:<port>`.
    let issuer: String

    static let clientID = "flag-console"
    static let clientSecret = "provider-test-client-secret-7f3a9c"
    /// The console's callback as registered; tests turn the provider's redirect there into a
    /// request to the test server.
    static let redirectURL = "http://console.test\(OIDCConfiguration.callbackPath)"

    /// Whether python3 can import authlib (`pip install authlib`).
    static let isAvailable: Bool = (try? runPython(["-c", "import authlib"]).0) == 0
    /// In CI (`CI` set) the provider must be there: its tests run, and fail without it, rather
    /// than being skipped.
    static let isRequired = ProcessInfo.processInfo.environment["CI"] != nil
    static let unavailableNote: Comment = "needs python3 with Authlib for the test OpenID provider: pip install authlib"

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/tools/oidc_provider.py").path
    }

    static func runPython(_ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Runs `body` with a provider started with `arguments` (see the script's options).
    static func with<T: Sendable>(_ arguments: [String] = [], _ body: (OIDCTestProvider) async throws -> T) async throws -> T {
        guard isAvailable else {
            throw TestFailure("python3 with authlib is missing (pip install authlib); CI must provide the test OpenID provider")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", script, "--port", "0", "--client-id", clientID, "--client-secret", clientSecret, "--exit-with-stdin",
        ] + arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = input
        try process.run()
        defer {
            // Closing its input ends the provider (--exit-with-stdin) even where SIGTERM is blocked.
            try? input.fileHandleForWriting.close()
            process.terminate()
            process.waitUntilExit()
        }
        var text = ""
        for await chunk in PipeDrain.chunks(of: output) {
            text += chunk
            if text.range(of: #"listening on \S+\n"#, options: .regularExpression) != nil { break }
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) else {
            throw TestFailure("the OpenID provider did not start:\n\(text)")
        }
        return try await body(OIDCTestProvider(issuer: String(line.dropFirst("listening on ".count))))
    }

    /// A console configuration for this provider: `flag-admins` → admin, `flag-editors` → editor.
    func configuration(
        passwords: Bool = true, defaultRole: ConsoleRole? = nil, keyRefetchInterval: TimeInterval = 30
    ) throws -> OIDCConfiguration {
        var configuration = try OIDCConfiguration(
            issuer: issuer, clientID: Self.clientID, clientSecret: Self.clientSecret, redirectURL: Self.redirectURL,
            scopes: ["openid", "profile", "groups"], roleMapping: ["flag-admins": .admin, "flag-editors": .editor],
            defaultRole: defaultRole, allowsPasswords: passwords, displayName: "Test IdP")
        configuration.keyRefetchInterval = keyRefetchInterval
        return configuration
    }

    /// How often the console fetched the provider's JWKS.
    func keySetFetches() async throws -> Int {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: issuer + "/test/stats"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1024)
        guard case .int(let count)? = try JSONValue(parsing: String(buffer: body))["jwks_fetches"] else {
            throw TestFailure("no jwks_fetches in the provider's stats")
        }
        return count
    }
}

extension TestServer {
    /// A real server whose console signs in through `configuration`'s provider, logging to `logger`.
    static func withSingleSignOn<T: Sendable>(
        _ configuration: OIDCConfiguration, options: ConsoleOptions = ConsoleOptions(), logger: Logger = Logger(label: "test"),
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        var options = options
        options.singleSignOn = configuration
        let store = try await SQLiteFlagStore(path: nil)
        let (server, bootstrap) = try await FlagServer.start(
            store: store, configuration: FlagServer.Configuration(limits: .forTests, rateLimiter: nil, console: options),
            consoleAccounts: ConsoleAccounts(store: store, passwordCost: 4), logger: logger)
        return try await TestServer.serving(server, bootstrap: bootstrap, store: store, body)
    }
}

extension ConsoleClient {
    /// The provider's part of a sign-in, as a browser would do it: the console's start, the
    /// provider's authorization (it approves at once, as `user` in `groups`, misbehaving as told),
    /// and the provider's redirect back.
    ///
    /// - Returns: The callback's path and query on the console (to send, or to replay).
    func authorize(
        at provider: OIDCTestProvider, user: String, groups: String, misbehave: String? = nil, deny: Bool = false
    ) async throws -> String {
        let start = try await get("/console/login/sso")
        guard start.status == 303, let location = start.location, location.hasPrefix(provider.issuer + "/authorize?") else {
            throw TestFailure("the console's sign-in start answered \(start.status), Location \(start.location ?? "none"):\n\(start.body)")
        }
        var url = location + "&test_user=\(user)&test_groups=\(groups)"
        if let misbehave { url += "&test_misbehave=\(misbehave)" }
        if deny { url += "&test_deny=1" }
        // Not through `send`: the provider never sees the console's cookies.
        let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1024 * 1024)
        guard response.status.code == 302, let callback = response.headers.first(name: "Location"),
            callback.hasPrefix(OIDCTestProvider.redirectURL + "?")
        else { throw TestFailure("the provider answered \(response.status.code):\n\(String(buffer: body))") }
        return String(callback.dropFirst("http://console.test".count))
    }

    /// A whole single sign-on: ``authorize(at:user:groups:misbehave:deny:)``, then the callback.
    @discardableResult
    func signIn(
        at provider: OIDCTestProvider, user: String, groups: String, misbehave: String? = nil
    ) async throws -> Reply {
        try await get(try await authorize(at: provider, user: user, groups: groups, misbehave: misbehave))
    }
}
