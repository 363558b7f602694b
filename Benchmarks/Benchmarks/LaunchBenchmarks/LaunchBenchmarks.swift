import Benchmark
import FeatureFlags
import FeatureFlagsRemote
import Foundation
import Logging

// Cold start: from the remote loader's on-disk cache to a ready manager, the way the README and
// the RemoteConfiguration article show it (one registry, a loader over it, a manager over both):
//
//   Launch.App300      `LaunchFlag`, a generated 300-flag enum with 30 typed values (a large
//                      real app): registry, loader, manager, the cached values applied
//   Launch.App300.TwoRegistries  the same, with the manager building a registry of its own
//                      (the documented path before `FeatureFlagManager(_:registry:)`)
//   Launch.Flags10k    10,000 flags declared as definitions (as a tool or a server loads them),
//                      through the same loader and the key-based engine
//   Baseline.Launch.JSONSerialization.*  reading and parsing the same cache file with
//                      Foundation, nothing more
//   Launch.Core.Flags10 / 100 / 1000  what the core alone costs an app at launch (the README's
//                      "Footprint"): a registry of that many definitions, the engine over it with
//                      no stores or remote layer (in memory), and the first evaluation
//   Baseline.Launch.Dictionary.10 / 100 / 1000  the same definitions' defaults put in a
//                      `[String: FlagValue]` and one read: the least any flag set costs
//
// Every iteration builds everything anew; the caches were written by a loader beforehand (a
// refresh answered with the payload), so each launch reads a fresh cache and sends nothing.

/// Warnings and errors only.
let quietLogger: Logger = {
    var logger = Logger(label: "feature-flags.launch")
    logger.logLevel = .warning
    return logger
}()

/// Answers every request with the same response, without a network.
struct FixedTransport: HTTPTransport {
    let response: RemoteHTTPResponse

    func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        RemoteHTTPStreamingResponse(response)
    }
}

/// A loader configuration caching in `directory`, and an `app_config` payload with a value for
/// every flag of `registry`.
struct LaunchFixture: Sendable {
    let configuration: RemoteConfigurationLoader.Configuration
    let payload: Data

    init(name: String, registry: FlagRegistry) {
        let environment = AppEnvironment(
            .dev, baseURL: URL(string: "http://config.invalid")!, bundleIdentifier: "com.example.benchmarks",
            appVersion: "1.0", build: "1")
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("feature-flags-launch-\(ProcessInfo.processInfo.processIdentifier)-\(name)")
        configuration = .init(environment: environment, source: .appConfig, cacheDirectory: directory)
        var flags: [String] = []
        var config: [String] = []
        for (index, definition) in registry.definitions.enumerated() {
            switch definition.type {
            case .boolean: flags.append(#""\#(definition.key)": \#(index % 3 == 0)"#)
            case .integer: config.append(#""\#(definition.key)": \#(index * 3)"#)
            case .double: config.append(#""\#(definition.key)": \#(index).25"#)
            default: config.append(#""\#(definition.key)": "remote-\#(index)""#)
            }
        }
        payload = Data(
            #"{"schemaVersion": 1, "ttlSeconds": 86400, "flags": {\#(flags.joined(separator: ","))}, "config": {\#(config.joined(separator: ","))}}"#
                .utf8)
    }

    /// Writes the cache the way the app's previous run did: a refresh answered with the payload.
    func writeCache(registry: FlagRegistry) async throws {
        let ok = RemoteHTTPResponse(
            statusCode: 200, headerFields: ["Content-Type": "application/json", "ETag": "\"v1\""], body: payload)
        let loader = RemoteConfigurationLoader(
            configuration: configuration, registry: registry, transport: FixedTransport(response: ok), logger: quietLogger)
        _ = try await loader.refresh()
    }

    /// A loader as an app creates it at launch; a request would be answered 304 (none is sent
    /// while the cache is fresh).
    func loader(registry: FlagRegistry) -> RemoteConfigurationLoader {
        let notModified = RemoteHTTPResponse(statusCode: 304, headerFields: ["ETag": "\"v1\""])
        return RemoteConfigurationLoader(
            configuration: configuration, registry: registry, transport: FixedTransport(response: notModified),
            logger: quietLogger)
    }

    var cacheURL: URL { loader(registry: try! FlagRegistry([])).cacheFile!.url }

    func removeCache() {
        try? FileManager.default.removeItem(at: configuration.cacheDirectory!)
    }
}

/// 10,000 flags: eight in ten Boolean (a dependency every fiftieth), one an integer, one a string.
func definitions10k() -> [FlagDefinition] {
    (0..<10_000).map { index in
        let key = "flag_\(index)"
        switch index % 10 {
        case 8: return FlagDefinition(key: key, type: .integer, default: .int(index), owner: "team-\(index % 7)")
        case 9: return FlagDefinition(key: key, type: .string, default: .string("value-\(index)"))
        default:
            return FlagDefinition(
                key: key, type: .boolean, default: .bool(index % 2 == 0), phase: index % 4, owner: "team-\(index % 7)",
                requires: index % 50 == 1 ? ["flag_\(index - 1)"] : [])
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident, .peakMemoryResidentDelta],
        warmupIterations: 2,
        maxDuration: .seconds(5),
        maxIterations: 200
    )

    let app = LaunchFixture(name: "app300", registry: try! FlagRegistry(LaunchFlag.self))
    Benchmark(
        "Launch.App300", configuration: configuration,
        closure: { _ in
            // The documented launch: one registry, shared by the loader and the manager.
            let registry = try FlagRegistry(LaunchFlag.self)
            let loader = app.loader(registry: registry)
            let flags = FeatureFlagManager<LaunchFlag>(
                FlagSetup(buildConfiguration: .debug, remoteProvider: loader, remoteApplyPolicy: .atSafePoint, logger: quietLogger),
                registry: registry)
            precondition(flags.isEnabled(.feature000) && flags.details(.feature003).layer == .remote)
            blackHole(flags)
        },
        setup: { try await app.writeCache(registry: FlagRegistry(LaunchFlag.self)) },
        teardown: { app.removeCache() })

    // The same launch before the manager could take the loader's registry: each built its own.
    Benchmark(
        "Launch.App300.TwoRegistries", configuration: configuration,
        closure: { _ in
            let loader = app.loader(registry: try FlagRegistry(LaunchFlag.self))
            let flags = FeatureFlagManager<LaunchFlag>(
                FlagSetup(buildConfiguration: .debug, remoteProvider: loader, remoteApplyPolicy: .atSafePoint, logger: quietLogger))
            precondition(flags.isEnabled(.feature000) && flags.details(.feature003).layer == .remote)
            blackHole(flags)
        },
        setup: { try await app.writeCache(registry: FlagRegistry(LaunchFlag.self)) },
        teardown: { app.removeCache() })

    let definitions = definitions10k()
    let large = LaunchFixture(name: "flags10k", registry: try! FlagRegistry(definitions))
    Benchmark(
        "Launch.Flags10k", configuration: configuration,
        closure: { _ in
            let registry = try FlagRegistry(definitions)
            let loader = large.loader(registry: registry)
            let engine = FlagEngine(
                registry: registry,
                setup: FlagSetup(buildConfiguration: .debug, remoteProvider: loader, remoteApplyPolicy: .atSafePoint, logger: quietLogger))
            precondition(engine.details(forKey: "flag_3").layer == .remote)
            blackHole(engine)
        },
        setup: { try await large.writeCache(registry: FlagRegistry(definitions)) },
        teardown: { large.removeCache() })

    // The core's own launch cost at 10, 100 and 1,000 flags, beside a plain dictionary of the
    // same defaults built in the same run.
    for count in [10, 100, 1_000] {
        let definitions = Array(definitions10k().prefix(count))
        let lastKey = definitions[count - 1].key
        Benchmark(
            "Launch.Core.Flags\(count)", configuration: configuration,
            closure: { _ in
                let registry = try FlagRegistry(definitions)
                let engine = FlagEngine(registry: registry, setup: FlagSetup(buildConfiguration: .release, logger: quietLogger))
                blackHole(engine.value(forKey: lastKey))
                blackHole(engine)
            })
        Benchmark(
            "Baseline.Launch.Dictionary.\(count)", configuration: configuration,
            closure: { _ in
                var values: [String: FlagValue] = [:]
                values.reserveCapacity(definitions.count)
                for definition in definitions { values[definition.key] = definition.defaultValue }
                blackHole(values[lastKey])
            })
    }

    for (name, fixture, registry) in [
        ("App300", app, try! FlagRegistry(LaunchFlag.self)), ("Flags10k", large, try! FlagRegistry(definitions)),
    ] {
        Benchmark(
            "Baseline.Launch.JSONSerialization.\(name)", configuration: configuration,
            closure: { _ in
                // The cache file is a JSON header line, then the payload.
                let data = try Data(contentsOf: fixture.cacheURL)
                let newline = data.firstIndex(of: 0x0A)!
                blackHole(try JSONSerialization.jsonObject(with: data[..<newline]))
                blackHole(try JSONSerialization.jsonObject(with: data[(newline + 1)...]))
            },
            setup: { try await fixture.writeCache(registry: registry) },
            teardown: { fixture.removeCache() })
    }
}
