import FeatureFlags
import FeatureFlagsTesting
import FeatureFlagsRemote
import Foundation
import Logging
import RemoteTestSupport
import Synchronization

enum TestFlag: String, CaseIterable, FeatureFlagKey {
    case chatViewRedesign = "chat_view_redesign"
    case offlineMode = "offline_mode"

    var metadata: FlagMetadata<TestFlag> { FlagMetadata(FlagDefinition.displayName(forKey: rawValue)) }

    static let typedFlags: [any FlagDefinitionConvertible] = TestRuntimeConfiguration.flags + [TestConfig.supportContact]
}

enum TestConfig {
    static let supportContact = TypedFlag<String>("support.contact", default: "help@example.com", sensitive: true)
}

let testRegistry = try! FlagRegistry(TestFlag.self)

/// Responses served in order; the last one repeats.
final class ResponseScript: Sendable {
    private let queue: Mutex<[ScriptedResponse]>

    init(_ responses: ScriptedResponse...) {
        queue = Mutex(responses)
    }

    func set(_ responses: ScriptedResponse...) {
        queue.withLock { $0 = responses }
    }

    func queueAll(_ responses: [ScriptedResponse]) {
        queue.withLock { $0 = responses }
    }

    func next() -> ScriptedResponse {
        queue.withLock { queue in
            if queue.count > 1 { return queue.removeFirst() }
            return queue.first ?? .respond(status: 404)
        }
    }
}

/// A server, a manual clock and a cache directory, torn down after `body`.
struct Fixture {
    let server: TestHTTPServer
    let script: ResponseScript
    let clock: ManualClock
    let directory: URL
    let logs: RecordingLogHandler

    var environment: AppEnvironment { Self.environment(server.baseURL) }

    static func environment(_ baseURL: URL) -> AppEnvironment {
        AppEnvironment(.dev, baseURL: baseURL, bundleIdentifier: "com.example.tests", appVersion: "1.2.3", build: "45")
    }

    func loader(
        source: RemoteSource = .appConfig,
        baseURL: URL? = nil,
        cache: Bool = true,
        defaultTTL: TimeInterval = 300,
        timeout: TimeInterval = 10,
        maximumPayloadSize: Int = 16 * 1024 * 1024,
        headerFields: [String: String] = [:],
        transport: (any HTTPTransport)? = nil
    ) -> RemoteConfigurationLoader {
        RemoteConfigurationLoader(
            configuration: .init(
                environment: Self.environment(baseURL ?? server.baseURL), source: source,
                cacheDirectory: cache ? directory : nil, defaultTTL: defaultTTL, requestTimeout: timeout,
                retryPolicy: RefreshRetryPolicy(initialDelay: 2, multiplier: 2, maximumDelay: 60, jitter: 0.5, random: { 0 }),
                maximumPayloadSize: maximumPayloadSize, headerFields: headerFields),
            registry: testRegistry, transport: transport ?? URLSessionTransport(), clock: clock, logger: logs.logger)
    }

    static func run(_ responses: ScriptedResponse..., body: (Fixture) async throws -> Void) async throws {
        let script = ResponseScript()
        script.queueAll(responses)
        let server = try await TestHTTPServer.start { _ in script.next() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("ff-remote-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = Fixture(server: server, script: script, clock: ManualClock(), directory: directory, logs: RecordingLogHandler())
        do {
            try await body(fixture)
        } catch {
            await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}


/// A URL where nothing listens: a server started and stopped.
func deadURL() async throws -> URL {
    let server = try await TestHTTPServer.start { _ in .respond(status: 500) }
    let url = server.baseURL
    await server.shutdown()
    return url
}

enum Payloads {
    static func appConfig(
        flags: String = #"{"chat_view_redesign": true}"#,
        config: String = #"{"auth.magic_link_resend_cooldown_seconds": 30, "cues.page_size": 50}"#,
        ttl: Int? = 120
    ) -> String {
        #"{"schemaVersion": 1, "flags": \#(flags), "config": \#(config)\#(ttl.map { ", \"ttlSeconds\": \($0)" } ?? "")}"#
    }

    static let ofrep = #"""
        {"flags": [
          {"key": "chat_view_redesign", "value": true, "reason": "TARGETING_MATCH", "variant": "on"},
          {"key": "cues.page_size", "value": 40, "reason": "SPLIT", "variant": "b"},
          {"key": "offline_mode", "errorCode": "PARSE_ERROR", "errorDetails": "bad rule"},
          {"key": "analytics.session_replay_enabled", "reason": "DEFAULT"},
          {"key": "not_in_app", "value": 1, "reason": "STATIC"}
        ], "metadata": {"version": "v12"}}
        """#
}

