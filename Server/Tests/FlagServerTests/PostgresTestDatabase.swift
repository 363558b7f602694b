@testable import FlagServer
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL the tests use: `FLAG_SERVER_TEST_DATABASE_URL` (CI starts one with
/// `.ci/postgres.sh`). Each test works in a schema of its own, so tests run in parallel.
///
/// Without a URL the PostgreSQL tests are skipped locally (the trait says why) but run, and fail
/// saying what is missing, in CI (`CI=true`).
enum PostgresTestDatabase {
    static let environment = ProcessInfo.processInfo.environment
    static let url = environment["FLAG_SERVER_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let inCI = environment["CI"] == "true"
    /// The script that starts and stops a PostgreSQL (`.ci/postgres.sh`), for the restart test.
    static let control = environment["FLAG_SERVER_TEST_POSTGRES_CONTROL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Whether PostgreSQL tests run: with a URL, and always in CI, where a missing URL fails them.
    static var enabled: Bool { url != nil || inCI }

    static let missing =
        "FLAG_SERVER_TEST_DATABASE_URL is not set: start PostgreSQL with `source .ci/postgres.sh; postgres_setup` (CI does, before the server's tests)"

    /// Skips the calling test where PostgreSQL tests do not run (no URL, outside CI). In CI they
    /// always run, and a missing URL fails them, saying so.
    static func skipUnlessEnabled() throws {
        if !enabled { try Test.cancel(Comment(rawValue: missing)) }
    }

    /// A fresh schema name.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
    }

    /// The test database's configuration, with `schema`.
    static func configuration(schema: String) throws -> PostgresConfiguration {
        guard let url else { throw TestFailure(missing) }
        var configuration = try PostgresConfiguration(url: url)
        configuration.schema = schema
        return configuration
    }

    /// The URL of `schema` in the test database, for `flag-server serve --database-url`.
    static func url(schema: String) throws -> String {
        guard let url else { throw TestFailure(missing) }
        return url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// A store over `schema` (a fresh one by default).
    static func makeStore(schema: String = freshSchema()) throws -> PostgresFlagStore {
        makeStore(configuration: try configuration(schema: schema))
    }

    /// A store over `configuration`.
    static func makeStore(configuration: PostgresConfiguration) -> PostgresFlagStore {
        PostgresFlagStore(configuration: configuration, logger: Logger(label: "test.postgres"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout)
    }

    /// Runs `sql` on a connection of its own and returns the first column of each row as text.
    @discardableResult
    static func query(_ sql: String, configuration: PostgresConfiguration? = nil) async throws -> [String] {
        let configuration = try configuration ?? self.configuration(schema: "public")
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: Logger(label: "test.postgres"))
        do {
            var values: [String] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "test.postgres")) {
                values.append((try? row.decode(String.self)) ?? "")
            }
            try await connection.close()
            return values
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
