import FeatureFlags
import Foundation

/// The admin API of a flag server (`/admin/v1`), as `flags push`, `pull` and `diff` use it.
///
/// Every failure is a ``ToolingError`` of kind ``ToolingError/Kind/serverFailure`` that says
/// what was asked, what the server answered (its JSON error quoted) and how to fix it. The token
/// never appears in a message: a server text that contains it prints `<REDACTED>` instead.
///
/// ```swift
/// let client = try FlagServerClient(server: "https://flags.example.com", token: token)
/// let diff = ServerDiff(code: manifest.flags.map(ServerFlag.init), server: try client.definitions())
/// ```
public struct FlagServerClient: Sendable {
    /// What the token is used for, so that a 401 or 403 says which role is needed.
    public enum Purpose: Sendable, Hashable {
        /// Reading definitions (and one environment's settings).
        case read(environment: String?)
        /// Registering definitions.
        case write
        /// Another admin write, such as `"scheduling changes"`, in one environment or (`nil`)
        /// one that needs every environment.
        case change(String, environment: String?)
    }

    /// What a secret (the token in a server's text, a sensitive flag's value) prints as.
    public static let redacted = "<REDACTED>"

    /// The largest answer accepted by default: 8 MiB, the server's own import limit.
    public static let defaultMaximumResponseBytes = 8 * 1024 * 1024

    /// The server's base URL (without `/admin/v1`).
    public let server: URL
    private let token: String
    private let transport: any FlagServerTransport
    /// The largest answer body accepted (8 MiB unless set).
    public let maximumResponseBytes: Int
    /// Where the token came from, as a refused token's message names it: `--token or the
    /// FLAGS_SERVER_TOKEN environment variable` unless told otherwise.
    public var tokenSource = "--token or the FLAGS_SERVER_TOKEN environment variable"

    /// A client of the server at `server` (an `http` or `https` URL, the server's root).
    ///
    /// - Throws: ``ToolingError`` (invalid input) when `server` is not such a URL or the token is empty.
    public init(
        server: String, token: String, transport: any FlagServerTransport = URLSessionFlagServerTransport(),
        maximumResponseBytes: Int = defaultMaximumResponseBytes
    ) throws(ToolingError) {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw ToolingError(
                .invalidInput, "--server \"\(server)\" is not an http or https URL; pass the server's root, such as https://flags.example.com.")
        }
        guard !token.isEmpty else {
            throw ToolingError(.invalidInput, "No token: pass --token or set the FLAGS_SERVER_TOKEN environment variable.")
        }
        self.server = url
        self.token = token
        self.transport = transport
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Whether the token would travel unencrypted to another machine: `http` to a host other
    /// than `localhost`, `127.0.0.1` or `::1`.
    public var sendsTokenInClear: Bool {
        guard server.scheme?.lowercased() == "http", let host = server.host?.lowercased() else { return false }
        return !["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
    }

    /// Every flag definition on the server (`GET /admin/v1/flags`).
    public func definitions() throws(ToolingError) -> [ServerFlag] {
        let data = try call("GET", "/admin/v1/flags", purpose: .read(environment: nil))
        return try decode([ServerFlag].self, data, from: "GET /admin/v1/flags")
    }

    /// One environment's settings, by flag key (`GET /admin/v1/environments/{environment}/flags`).
    public func settings(environment: String) throws(ToolingError) -> [String: ServerFlagSettings] {
        struct Entry: Decodable {
            struct Flag: Decodable { var key: String }
            var flag: Flag
            var settings: ServerFlagSettings
        }
        let path = "/admin/v1/environments/\(Self.pathComponent(environment))/flags"
        let data = try call("GET", path, purpose: .read(environment: environment))
        let entries = try decode([Entry].self, data, from: "GET \(path)")
        return Dictionary(entries.map { ($0.flag.key, $0.settings) }, uniquingKeysWith: { first, _ in first })
    }

    /// What a registration changes (or changed).
    public struct Registration: Sendable, Hashable {
        /// One changed subject: `flag "checkout" in production`.
        public struct Change: Sendable, Hashable, Decodable {
            /// The environment changed.
            public var environment: String
            /// What kind of thing changed (`flag`, `segment`, `environment`).
            public var subject: String
            /// The flag's or segment's key, or the environment's name.
            public var key: String

            /// A change of `subject` `key` in `environment`.
            public init(environment: String, subject: String, key: String) {
                self.environment = environment
                self.subject = subject
                self.key = key
            }
        }
        /// Every subject the registration changes (or changed).
        public var changes: [Change]
        /// Why the server would refuse the write (dry run), one sentence each.
        public var problems: [String]
        /// The new revision of every environment the write changed (empty for a dry run).
        public var revisions: [String: Int]
    }

    /// Registers definitions atomically without touching environment settings
    /// (`POST /admin/v1/flags`); the flags in `resetting` are also switched off on their default
    /// variant in every environment (a forced type change), and the flags in `settings` get those
    /// settings in its environment (targeting is kept). A dry run writes nothing.
    public func register(
        _ flags: [ServerFlag], resetting: Set<String> = [],
        settings: (environment: String, flags: [String: ServerFlagSettings])? = nil, dryRun: Bool, reason: String? = nil
    ) throws(ToolingError) -> Registration {
        struct Item: Encodable {
            var flag: ServerFlag
            var reset: Bool
            var settings: [String: ServerFlagSettings]?
            enum CodingKeys: String, CodingKey { case key, type, variants, metadata, defaultVariant, resetSettings, settings }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(flag.key, forKey: .key)
                try container.encode(flag.type, forKey: .type)
                try container.encode(flag.variants, forKey: .variants)
                try container.encode(flag.metadata, forKey: .metadata)
                try container.encode(flag.defaultVariant ?? "", forKey: .defaultVariant)
                if reset { try container.encode(true, forKey: .resetSettings) }
                try container.encodeIfPresent(settings, forKey: .settings)
            }
        }
        struct Body: Encodable {
            var flags: [Item]
            var reason: String?
        }
        struct Answer: Decodable {
            struct Problem: Decodable {
                var environment: String?
                var key: String?
                var field: String
                var problem: String
            }
            var changes: [Registration.Change]
            var problems: [Problem]
            var revisions: [String: Int]
        }
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let items = flags.map { flag in
                Item(
                    flag: flag, reset: resetting.contains(flag.key),
                    settings: settings.flatMap { settings in settings.flags[flag.key].map { [settings.environment: $0] } })
            }
            body = try encoder.encode(Body(flags: items, reason: reason))
        } catch {
            throw ToolingError(.failed, "The definitions cannot be encoded as JSON: \(error).")
        }
        let path = "/admin/v1/flags" + (dryRun ? "?dryRun=true" : "")
        let data = try call("POST", path, body: body, purpose: .write)
        let answer = try decode(Answer.self, data, from: "POST \(path)")
        return Registration(
            changes: answer.changes,
            problems: answer.problems.map { Self.describe(environment: $0.environment, key: $0.key, field: $0.field, problem: $0.problem) },
            revisions: answer.revisions)
    }

    // MARK: - Exchanges

    /// Sends one request to the admin API and answers the body of a 2xx answer; any other answer
    /// or failure is a ``ToolingError`` (server failure) saying what to do.
    package func call(_ method: String, _ path: String, body: Data? = nil, purpose: Purpose) throws(ToolingError) -> Data {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        guard let url = URL(string: base + path) else {
            throw ToolingError(.invalidInput, "Cannot form a URL from --server \"\(server.absoluteString)\" and \(path).")
        }
        var headers = ["Authorization": "Bearer \(token)", "Accept": "application/json"]
        if body != nil { headers["Content-Type"] = "application/json" }
        let request = FlagServerRequest(
            method: method, url: url, headers: headers, body: body, maximumResponseBytes: maximumResponseBytes)
        let operation = "\(method) \(path)"
        let response: FlagServerResponse
        do {
            response = try transport.send(request)
        } catch {
            switch error {
            case .unreachable(var reason):
                while reason.hasSuffix(".") { reason.removeLast() }
                throw ToolingError(
                    .serverFailure,
                    "Cannot reach the flag server at \(server.absoluteString) (\(operation)): \(reason). Check --server and that the server is running.")
            case .tooLarge(let limit):
                throw ToolingError(
                    .serverFailure,
                    "The server's answer to \(operation) is larger than \(limit) bytes, the limit; nothing was read. Raise it with --max-response-bytes if the server really holds that much.")
            }
        }
        switch response.status {
        case 200..<300:
            return response.body
        case 300..<400:
            throw ToolingError(
                .serverFailure,
                "The server answered \(operation) with \(response.status), a redirect to \(response.location.map { "\"\(redacted($0))\"" } ?? "an unnamed place"); flags does not follow redirects, so that the token never goes elsewhere. If you trust that address, pass it with --server.")
        case 401:
            throw ToolingError(
                .serverFailure,
                "The server refused the token (401\(serverError(response.body))). Pass a valid token with \(tokenSource): \(Self.roleNeeded(purpose)).")
        case 403:
            throw ToolingError(
                .serverFailure,
                "The token may not do this (403\(serverError(response.body))): \(Self.roleNeeded(purpose)).")
        default:
            throw ToolingError(
                .serverFailure, "The server refused \(operation) (\(response.status)\(serverError(response.body))).")
        }
    }

    /// Which token `purpose` needs, as a sentence fragment.
    static func roleNeeded(_ purpose: Purpose) -> String {
        switch purpose {
        case .write: "registering definitions needs an admin token for all environments (\"*\")"
        case .read(nil): "reading definitions needs an admin token"
        case .read(let environment?): "reading environment \"\(environment)\" needs an admin token for it or for all environments (\"*\")"
        case .change(let what, let environment?):
            "\(what) in environment \"\(environment)\" needs an admin token for it or for all environments (\"*\")"
        case .change(let what, nil): "\(what) needs an admin token for all environments (\"*\")"
        }
    }

    /// `: invalid: "message"` and its problems from the server's JSON error, or a quote of the
    /// start of a body that is not one.
    private func serverError(_ body: Data) -> String {
        struct ErrorBody: Decodable {
            struct Detail: Decodable {
                struct Problem: Decodable {
                    var environment: String?
                    var key: String?
                    var field: String
                    var problem: String
                }
                var code: String
                var message: String
                var problems: [Problem]?
            }
            var error: Detail
        }
        guard !body.isEmpty else { return "" }
        guard let decoded = try? JSONDecoder().decode(ErrorBody.self, from: body) else {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            return ", not a JSON error: \"\(redacted(text))\(body.count > 200 ? "…" : "")\""
        }
        var text = " \(decoded.error.code): \"\(redacted(decoded.error.message))\""
        for problem in decoded.error.problems ?? [] {
            text += "\n  " + redacted(Self.describe(environment: problem.environment, key: problem.key, field: problem.field, problem: problem.problem))
        }
        return text
    }

    private static func describe(environment: String?, key: String?, field: String, problem: String) -> String {
        var place = key.map { "\"\($0)\"" } ?? "request"
        if let environment { place += " in environment \"\(environment)\"" }
        return "\(place): \(field): \(problem)"
    }

    /// `text` with the token replaced by `<REDACTED>`. A token shorter than 8 characters is
    /// not a server's token (they read `ffs_<id>_<secret>`) and would garble every word it
    /// occurs in, so it is left alone.
    private func redacted(_ text: String) -> String {
        guard token.count >= 8 else { return text }
        return text.replacingOccurrences(of: token, with: Self.redacted)
    }

    /// Decodes an answer `operation` gave; a body of another shape is a ``ToolingError`` naming
    /// the field.
    package func decode<T: Decodable>(_ type: T.Type, _ data: Data, from operation: String) throws(ToolingError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw ToolingError(
                .serverFailure, "The server's answer to \(operation) is not what flags expects: \(Self.describe(error)).")
        } catch {
            throw ToolingError(.serverFailure, "The server's answer to \(operation) is not JSON: \(error).")
        }
    }

    /// Where and why decoding failed, as `flags.0.key: missing`.
    package static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop { $0 == "." })
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON" : "\(path(context.codingPath)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        @unknown default:
            return "\(error)"
        }
    }

    /// `text` percent-encoded for one path component or query value.
    package static func pathComponent(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
