import FlagEvaluation
import FlagServer
import Logging
import Testing

struct ServerConfigurationTests {
    @Test
    func defaultsServeOnLoopbackWithSQLiteInTheDataDirectory() throws {
        let configuration = try ServerConfiguration(environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.databasePath == "./flag-server-data/flags.sqlite")
        #expect(configuration.logLevel == .info)
        #expect(configuration.ttlSeconds == 60)
    }

    @Test
    func optionsWinOverEnvironmentVariables() throws {
        let environment = [
            "FLAG_SERVER_HOST": "0.0.0.0", "FLAG_SERVER_PORT": "9000", "FLAG_SERVER_DATA_DIRECTORY": "/var/lib/flags",
            "FLAG_SERVER_LOG_LEVEL": "DEBUG",
        ]
        let fromEnvironment = try ServerConfiguration(environment: environment)
        #expect(fromEnvironment.host == "0.0.0.0")
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.dataDirectory == "/var/lib/flags")
        #expect(fromEnvironment.logLevel == .debug)
        let fromOptions = try ServerConfiguration(port: 7000, logLevel: "error", environment: environment)
        #expect(fromOptions.port == 7000)
        #expect(fromOptions.logLevel == .error)
    }

    @Test
    func theLimitsAreConfigurableByOptionAndVariable() throws {
        let defaults = try ServerConfiguration(environment: [:]).limits
        #expect(defaults == ServerLimits())
        #expect(defaults.writeTimeout == .seconds(10))
        let environment = [
            "FLAG_SERVER_WRITE_TIMEOUT_SECONDS": "3", "FLAG_SERVER_IDLE_TIMEOUT_SECONDS": "5",
            "FLAG_SERVER_BODY_TIMEOUT_SECONDS": "2", "FLAG_SERVER_MAXIMUM_HEADER_BYTES": "4096",
            "FLAG_SERVER_MAXIMUM_CONNECTIONS": "100", "FLAG_SERVER_MAXIMUM_EVENT_STREAMS": "50",
            "FLAG_SERVER_MAXIMUM_EVENT_STREAMS_PER_TOKEN": "4",
        ]
        let limits = try ServerConfiguration(environment: environment).limits
        #expect(limits.writeTimeout == .seconds(3))
        #expect(limits.idleTimeout == .seconds(5))
        #expect(limits.bodyTimeout == .seconds(2))
        #expect(limits.maximumHeaderBytes == 4096)
        #expect(limits.maximumConnections == 100)
        #expect(limits.maximumEventStreams == 50)
        #expect(limits.maximumEventStreamsPerToken == 4)
        let option = try ServerConfiguration(writeTimeoutSeconds: 7, maximumEventStreamsPerToken: 1, environment: environment)
        #expect(option.limits.writeTimeout == .seconds(7))
        #expect(option.limits.maximumEventStreamsPerToken == 1)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(writeTimeoutSeconds: 0, environment: [:]) }
    }

    @Test
    func theEventStreamKeepAliveIsConfigurable() throws {
        #expect(try ServerConfiguration(environment: [:]).eventStreamKeepAliveSeconds == 15)
        let environment = ["FLAG_SERVER_EVENT_STREAM_KEEP_ALIVE_SECONDS": "20"]
        #expect(try ServerConfiguration(environment: environment).eventStreamKeepAliveSeconds == 20)
        #expect(try ServerConfiguration(eventStreamKeepAliveSeconds: 5, environment: environment).eventStreamKeepAliveSeconds == 5)
        #expect {
            try ServerConfiguration(eventStreamKeepAliveSeconds: 0, environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.description == "--event-stream-keep-alive-seconds must be in 1…3600, got 0"
        }
    }

    @Test
    func theRolloutTickIsConfigurable() throws {
        #expect(try ServerConfiguration(environment: [:]).rolloutTickSeconds == 10)
        let environment = ["FLAG_SERVER_ROLLOUT_TICK_SECONDS": "2"]
        #expect(try ServerConfiguration(environment: environment).rolloutTickSeconds == 2)
        #expect(try ServerConfiguration(rolloutTickSeconds: 1, environment: environment).rolloutTickSeconds == 1)
        #expect {
            try ServerConfiguration(environment: ["FLAG_SERVER_ROLLOUT_TICK_SECONDS": "601"])
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("FLAG_SERVER_ROLLOUT_TICK_SECONDS") == true
        }
    }

    @Test
    func theFractionalBucketingIsChosenByOptionOrVariable() throws {
        #expect(try ServerConfiguration(environment: [:]).fractionalBucketing == .current)
        let environment = ["FLAG_SERVER_FRACTIONAL_BUCKETING": "legacy"]
        #expect(try ServerConfiguration(environment: environment).fractionalBucketing == .legacy)
        #expect(try ServerConfiguration(fractionalBucketing: "v3", environment: environment).fractionalBucketing == .v3)
        #expect {
            try ServerConfiguration(fractionalBucketing: "v1", environment: [:])
        } throws: { error in
            (error as? ConfigurationError)?.description == "--fractional-bucketing \"v1\" is not one of current, legacy, v3"
        }
    }

    @Test
    func badValuesAreNamed() {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["FLAG_SERVER_PORT": "http"]) }
        do {
            _ = try ServerConfiguration(environment: ["FLAG_SERVER_PORT": "http"])
        } catch {
            #expect(error.description == "FLAG_SERVER_PORT=http is not a whole number")
        }
        do {
            _ = try ServerConfiguration(port: 70000, environment: [:])
        } catch {
            #expect(error.description == "--port must be in 0…65535, got 70000")
        }
        do {
            _ = try ServerConfiguration(logLevel: "loud", environment: [:])
        } catch {
            #expect(error.description.hasPrefix("log level \"loud\" is not one of trace"))
        }
    }

    @Test
    func aBadDatabaseURLIsRefusedWithItsPasswordRedacted() {
        do {
            _ = try ServerConfiguration(environment: ["FLAG_SERVER_DATABASE_URL": "postgres://flags:hunter2@db/flags?sslmode=maybe"])
            Issue.record("a PostgreSQL URL with a bad sslmode was accepted")
        } catch {
            #expect(!error.description.contains("hunter2"))
            #expect(error.description.contains("postgres://<REDACTED>@db/flags"))
        }
    }

    /// `serve` and `relay` resolve numbers through one ``ConfigurationSource``: an empty variable
    /// is unset, and a bad option is named by the option the command really has.
    @Test
    func theSharedSourceTreatsAnEmptyVariableAsUnsetAndNamesTheRealOption() throws {
        let source = ConfigurationSource(environment: ["FLAG_SERVER_PORT": "", "FLAG_SERVER_RELAY_IDLE_SECONDS": "9"])
        #expect(try source.integer(nil, "FLAG_SERVER_PORT", default: 8080, range: 0...65535) == 8080)
        #expect(try ServerConfiguration(environment: ["FLAG_SERVER_PORT": ""]).port == 8080)
        #expect(try source.integer(nil, "FLAG_SERVER_RELAY_IDLE_SECONDS", default: 45, range: 5...3600) == 9)
        #expect(source.text(nil, "FLAG_SERVER_PORT") == nil)
        #expect(source.text("x", "FLAG_SERVER_PORT") == "x")
        #expect {
            try source.integer(1, "FLAG_SERVER_RELAY_IDLE_SECONDS", optionName: "upstream-idle-seconds", default: 45, range: 5...3600)
        } throws: { error in
            (error as? ConfigurationError)?.description == "--upstream-idle-seconds must be in 5…3600, got 1"
        }
        #expect {
            try source.integer(nil, "FLAG_SERVER_RELAY_IDLE_SECONDS", default: 45, range: 10...3600)
        } throws: { error in
            (error as? ConfigurationError)?.description == "FLAG_SERVER_RELAY_IDLE_SECONDS must be in 10…3600, got 9"
        }
    }
}
