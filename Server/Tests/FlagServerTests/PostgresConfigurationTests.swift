import FlagServer
import Testing

struct PostgresConfigurationTests {
    @Test
    func aURLIsReadWithItsOptions() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://flags:s%40cret@db.internal:6543/flag_data?sslmode=require&schema=replicas")
        #expect(configuration.host == "db.internal")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "flags")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "flag_data")
        #expect(configuration.tls == .require)
        #expect(configuration.schema == "replicas")
    }

    @Test
    func defaultsArePort5432AndPreferredTLS() throws {
        let configuration = try PostgresConfiguration(url: "postgres://flags@127.0.0.1/flags")
        #expect(configuration.port == 5432)
        #expect(configuration.tls == .prefer)
        #expect(configuration.password == nil)
        #expect(configuration.schema == nil)
    }

    @Test
    func thePasswordNeverPrints() throws {
        let configuration = try PostgresConfiguration(url: "postgres://flags:hunter2@db/flags?schema=s1")
        #expect(configuration.description == "postgres://flags:<REDACTED>@db:5432/flags?schema=s1")
        let server = try ServerConfiguration(environment: ["FLAG_SERVER_DATABASE_URL": "postgres://flags:hunter2@db/flags"])
        #expect(server.postgres?.description.contains("hunter2") == false)
    }

    @Test(arguments: [
        ("mysql://flags:hunter2@db/flags", "is not a postgres:// URL"),
        ("postgres://flags:hunter2@/flags", "names no host"),
        ("postgres://db/flags", "names no user"),
        ("postgres://flags:hunter2@db", "names no database"),
        ("postgres://flags:hunter2@db/flags?sslmode=maybe", "sslmode \"maybe\" is not one of disable, prefer, require"),
        ("postgres://flags:hunter2@db/flags?schema=Robert;DROP", "schema \"Robert;DROP\" must be"),
        ("postgres://flags:hunter2@db/flags?timeout=3", "unknown query item \"timeout\""),
    ])
    func aBadURLIsRefusedSayingWhatIsWrongWithoutThePassword(url: String, problem: String) {
        do {
            _ = try PostgresConfiguration(url: url)
            Issue.record("\(url) was accepted")
        } catch {
            #expect(error.description.contains(problem))
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test
    func theServerConfigurationReadsTheURLAndTheCheckInterval() throws {
        let configuration = try ServerConfiguration(
            revisionCheckSeconds: 5,
            environment: ["FLAG_SERVER_DATABASE_URL": "postgres://flags@db/flags", "FLAG_SERVER_REVISION_CHECK_SECONDS": "9"])
        #expect(configuration.postgres?.host == "db")
        #expect(configuration.revisionCheckSeconds == 5)
        #expect(try ServerConfiguration(environment: [:]).revisionCheckSeconds == 30)
        #expect(try ServerConfiguration(environment: [:]).rateLimitPerSecond == 50)
        #expect(try ServerConfiguration(environment: ["FLAG_SERVER_RATE_LIMIT_PER_SECOND": "0"]).rateLimitPerSecond == 0)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["FLAG_SERVER_REVISION_CHECK_SECONDS": "0"])
        }
    }
}
