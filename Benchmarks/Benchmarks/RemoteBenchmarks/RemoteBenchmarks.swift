import Benchmark
import FeatureFlags
import FeatureFlagsRemote
import FlagEvaluation
import Foundation
import Logging

// Benchmarks of remote loading (issue 3, "Performance"), on a registry of 10,000 flags and an
// `app_config` payload with a value for every one of them:
//
//   Baseline.RemoteJSONSerialization  parsing the payload with Foundation, nothing more
//   Baseline.RemoteJSONValue          parsing it with the package's own parser into the
//                                     evaluation engine's `JSONValue`, nothing more
//   Remote.Decode                     decoding and validating it against the registry
//   Remote.Apply                      decoding a changed payload (ten values differ from the one
//                                     in effect) and handing it to a manager whose every flag
//                                     has an `updates(forKey:)` subscriber
//   Remote.Refresh200 / Refresh304    a manual refresh through the loader, with an in-process
//                                     transport answering 200 with the payload, or 304
//
// That a 304 decodes nothing, and that a changed payload notifies only the subscribers of the
// flags that changed, is asserted by the unit tests (RemoteConfigurationLoaderTests,
// LargeRegistryNotificationTests); these measure what it costs.

let flagCount = 10_000
let changedCount = 10

func key(_ index: Int) -> String { "remote_flag_\(index)" }

/// Nine in ten flags are Boolean, one in ten an integer.
let registry: FlagRegistry = {
    let definitions = (0..<flagCount).map { index in
        index % 10 == 9
            ? FlagDefinition(key: key(index), type: .integer, default: .int(0))
            : FlagDefinition(key: key(index), type: .boolean, default: .bool(false))
    }
    return try! FlagRegistry(definitions)
}()

/// An `app_config` payload; `variant` 1 differs from variant 0 in the first `changedCount`
/// flags.
func payload(variant: Int) -> Data {
    var flags: [String] = []
    var config: [String] = []
    for index in 0..<flagCount {
        let changed = variant == 1 && index < changedCount
        if index % 10 == 9 {
            config.append(#""\#(key(index))": \#(changed ? index + 1 : index)"#)
        } else {
            flags.append(#""\#(key(index))": \#(changed != (index % 2 == 0))"#)
        }
    }
    let text = #"{"schemaVersion": 1, "ttlSeconds": 300, "flags": {\#(flags.joined(separator: ","))}, "config": {\#(config.joined(separator: ","))}}"#
    return Data(text.utf8)
}

/// Answers every request with the same response, without a network.
struct FixedTransport: HTTPTransport {
    let response: RemoteHTTPResponse

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        RemoteHTTPStreamingResponse(response)
    }
}

/// Warnings and errors only: a refresh logs at `info`, which would swamp the output.
let quietLogger: Logger = {
    var logger = Logger(label: "feature-flags.remote")
    logger.logLevel = .warning
    return logger
}()

func makeLoader(answering response: RemoteHTTPResponse, cacheDirectory: URL) -> RemoteConfigurationLoader {
    let environment = AppEnvironment(
        .dev, baseURL: URL(string: "http://config.invalid")!, bundleIdentifier: "com.example.benchmarks",
        appVersion: "1.0", build: "1")
    return RemoteConfigurationLoader(
        configuration: .init(environment: environment, source: .appConfig, cacheDirectory: cacheDirectory),
        registry: registry,
        transport: FixedTransport(response: response),
        logger: quietLogger)
}

let benchmarks: @Sendable () -> Void = {
    let payloads = [payload(variant: 0), payload(variant: 1)]
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: .seconds(3),
        maxIterations: 100
    )

    Benchmark("Baseline.RemoteJSONSerialization", configuration: configuration) { _ in
        blackHole(try JSONSerialization.jsonObject(with: payloads[0]))
    }

    Benchmark("Baseline.RemoteJSONValue", configuration: configuration) { _ in
        blackHole(try JSONValue(parsing: payloads[0]))
    }

    Benchmark("Remote.Decode", configuration: configuration) { _ in
        blackHole(try RemotePayloadDecoder.decode(payloads[0], format: .appConfig, registry: registry))
    }

    // One manager for all iterations, with a subscriber per flag; each iteration applies the
    // payload that is not in effect, so every iteration changes exactly `changedCount` values.
    let manager = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release))
    let subscriptions = (0..<flagCount).map { manager.updates(forKey: key($0)) }
    nonisolated(unsafe) var next = 0
    Benchmark("Remote.Apply", configuration: configuration) { _ in
        let decoded = try RemotePayloadDecoder.decode(payloads[next], format: .appConfig, registry: registry)
        manager.receiveRemoteValues(RemoteFlagValues(decoded.values, source: "app_config"))
        next = 1 - next
    } teardown: {
        precondition(manager.subscriberCount == flagCount, "the subscriptions ended early")
        withExtendedLifetime(subscriptions) {}
    }

    let cacheDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("feature-flags-remote-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
    let ok = RemoteHTTPResponse(
        statusCode: 200, headerFields: ["Content-Type": "application/json", "ETag": "\"v1\""], body: payloads[0])
    let notModified = RemoteHTTPResponse(statusCode: 304, headerFields: ["ETag": "\"v1\""])

    let fullLoader = makeLoader(answering: ok, cacheDirectory: cacheDirectory.appendingPathComponent("200"))
    Benchmark("Remote.Refresh200", configuration: configuration) { _ in
        blackHole(try await fullLoader.refresh())
    }

    // Primed with one 200 so that it has values and an ETag; every measured refresh is a 304.
    let conditionalLoader = makeLoader(answering: notModified, cacheDirectory: cacheDirectory.appendingPathComponent("304"))
    Benchmark("Remote.Refresh304", configuration: configuration) { _ in
        blackHole(try await conditionalLoader.refresh())
    } setup: {
        let primer = makeLoader(answering: ok, cacheDirectory: cacheDirectory.appendingPathComponent("304"))
        _ = try await primer.refresh()
    } teardown: {
        try? FileManager.default.removeItem(at: cacheDirectory)
    }
}
