import Foundation

/// Where a ``PostgresFlagStore`` connects, read from a database URL.
///
/// ```swift
/// let configuration = try PostgresConfiguration(url: "postgres://flags:secret@db.internal:5432/flags?sslmode=require")
/// ```
///
/// The URL is `postgres://` (or `postgresql://`) `user[:password]@host[:port]/database`, with the
/// optional query items `sslmode` (`disable`, `prefer`, the default, or `require`) and `schema`
/// (the schema the server's tables live in, `public` by default; created if missing). The password
/// never appears in ``description``.
public struct PostgresConfiguration: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS.
    public enum TLSMode: String, Sendable, Hashable {
        /// `disable`: plain connections; `prefer` (the default): TLS when the server offers it; `require`:
        /// TLS or no connection.
        case disable, prefer, require
    }

    /// The database server's host name or address.
    public var host: String
    /// The database server's port (5432 unless the URL names another).
    public var port: Int
    /// The user to connect as.
    public var username: String
    /// The user's password; `nil` when the URL gives none. Never printed.
    public var password: String?
    /// The database holding the server's tables.
    public var database: String
    /// How the connection uses TLS (the URL's `sslmode`).
    public var tls: TLSMode
    /// The schema of the server's tables; `nil` is PostgreSQL's default (`public`).
    public var schema: String?

    /// Reads `url`.
    ///
    /// - Throws: ``ConfigurationError`` saying which part of the URL is wrong (the password redacted).
    public init(url: String) throws(ConfigurationError) {
        let shown = ServerConfiguration.redactingCredentials(url)
        guard let components = URLComponents(string: url), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw ConfigurationError("database URL \"\(shown)\" is not a postgres:// URL (postgres://user:password@host:5432/database)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ConfigurationError("database URL \"\(shown)\" names no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ConfigurationError("database URL \"\(shown)\" names no user (postgres://user@host/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw ConfigurationError("database URL \"\(shown)\" names no database (the path after the host)")
        }
        self.host = host
        port = components.port ?? 5432
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database.removingPercentEncoding ?? database
        tls = .prefer
        schema = nil
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw ConfigurationError(
                        "database URL \"\(shown)\": sslmode \"\(item.value ?? "")\" is not one of disable, prefer, require")
                }
                tls = mode
            case "schema":
                guard let value = item.value, Self.isPlainIdentifier(value) else {
                    throw ConfigurationError(
                        "database URL \"\(shown)\": schema \"\(item.value ?? "")\" must be 1 to 48 lowercase letters, digits or _, starting with a letter")
                }
                schema = value
            default:
                throw ConfigurationError(
                    "database URL \"\(shown)\": unknown query item \"\(item.name)\" (known: sslmode, schema)")
            }
        }
    }

    /// `postgres://user:<REDACTED>@host:port/database`, never the password.
    public var description: String {
        var text = "postgres://\(username)\(password == nil ? "" : ":<REDACTED>")@\(host):\(port)/\(database)"
        var query: [String] = []
        if tls != .prefer { query.append("sslmode=\(tls.rawValue)") }
        if let schema { query.append("schema=\(schema)") }
        if !query.isEmpty { text += "?" + query.joined(separator: "&") }
        return text
    }

    /// Whether `name` can be used unquoted as a schema and inside a channel name.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.unicodeScalars.count <= 48 else {
            return false
        }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
