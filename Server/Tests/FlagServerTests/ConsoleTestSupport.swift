import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

extension TestServer {
    /// A real server with the console, whose passwords are hashed at bcrypt's lowest cost so
    /// that tests sign in quickly.
    static func withConsole<T: Sendable>(
        options: ConsoleOptions = ConsoleOptions(), delivery: DeliveryOptions = DeliveryOptions(),
        eventStore: (any FlagEventStore)? = nil, now: @escaping @Sendable () -> Date = Date.init,
        rolloutTickInterval: Duration? = .seconds(10),
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let store = try await SQLiteFlagStore(path: nil)
        let (server, bootstrap) = try await FlagServer.start(
            store: store, eventStore: eventStore,
            configuration: FlagServer.Configuration(
                limits: .forTests, rateLimiter: nil, console: options, delivery: delivery, rolloutTickInterval: rolloutTickInterval),
            consoleAccounts: ConsoleAccounts(store: store, passwordCost: 4), now: now)
        return try await TestServer.serving(server, bootstrap: bootstrap, store: store, body)
    }

    /// Creates a console user with the password `"\(name) password"`.
    func consoleUser(_ name: String, role: ConsoleRole) async throws {
        guard let accounts = server.consoleAccounts else { throw TestFailure("the server has no console") }
        try await accounts.createUser(name: name, password: "\(name) password", role: role)
    }
}

/// A browser-like client of the console: keeps cookies, does not follow redirects.
final class ConsoleClient: @unchecked Sendable {
    // @unchecked: used by one test task at a time; `cookies` is only touched from that task.
    let server: TestServer
    let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
    var cookies: [String: String] = [:]

    init(_ server: TestServer) { self.server = server }

    deinit { try? http.syncShutdown() }

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: String
        var setCookies: [String] { headers["Set-Cookie"] }
        func setCookie(_ name: String) -> String? { setCookies.first { $0.hasPrefix(name + "=") } }
        var location: String? { headers.first(name: "Location") }
        /// The value of the first `name="_csrf"` hidden field of the page.
        var csrf: String? { Self.field("_csrf", in: body) }

        static func field(_ name: String, in html: String) -> String? {
            guard let range = html.range(of: #"name="\#(name)" value=""#) else { return nil }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }
    }

    func send(_ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, headers: [(String, String)] = []) async throws -> Reply {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        if !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let text = form.map { "\($0.0.addingPercentEncoding(withAllowedCharacters: allowed)!)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }
                .joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: text))
        }
        let response = try await http.execute(request, deadline: .now() + .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 * 1024 * 1024)
        let reply = Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
        for header in reply.setCookies {
            let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            if header.lowercased().contains("max-age=0") {
                cookies[String(pair[0])] = nil
            } else {
                cookies[String(pair[0])] = String(pair[1])
            }
        }
        return reply
    }

    func get(_ path: String) async throws -> Reply { try await send(.GET, path) }

    /// Posts a form as a page of the console would, with the CSRF token of the current page.
    func post(_ path: String, _ fields: [(String, String)], csrf: String? = nil, headers: [(String, String)] = []) async throws -> Reply {
        try await send(.POST, path, form: (csrf.map { [("_csrf", $0)] } ?? []) + fields, headers: headers)
    }

    /// Signs in through the sign-in page; returns the final reply.
    @discardableResult
    func signIn(_ name: String, password: String? = nil, headers: [(String, String)] = []) async throws -> Reply {
        let page = try await get("/console/login")
        guard let token = page.csrf else { throw TestFailure("the sign-in page has no CSRF field") }
        return try await post(
            "/console/login", [("name", name), ("password", password ?? "\(name) password")], csrf: token, headers: headers)
    }

    /// The CSRF token of the signed-in session, read from a page.
    func csrf() async throws -> String {
        guard let token = try await get("/console/flags").csrf else { throw TestFailure("the flags page has no CSRF field") }
        return token
    }

    var sessionID: String? { cookies[ConsoleRoutes.sessionCookie] }
}
