import FeatureFlags
import Foundation

/// A large registry with its files on disk: 10,000 generated definitions (Booleans with phases
/// and a few dependencies, integers, strings), a JSON override file with 1,000 entries, and a
/// JSON remote cache with a value for every flag.
final class ManagerBuildFixture: Sendable {
    static let flagCount = 10_000
    static let overrideCount = 1_000

    let definitions: [FlagDefinition]
    let directory: URL
    let overridesURL: URL
    let remoteCacheURL: URL

    init() throws {
        var definitions: [FlagDefinition] = []
        definitions.reserveCapacity(Self.flagCount)
        for index in 0..<Self.flagCount {
            definitions.append(Self.definition(index))
        }
        self.definitions = definitions

        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("feature-flags-benchmarks-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        overridesURL = directory.appendingPathComponent("debug-feature-flags.json")
        remoteCacheURL = directory.appendingPathComponent("remote-cache.json")

        // Every tenth flag, shifted so that all three types are overridden.
        let overridden = (0..<Self.overrideCount).map { $0 * 10 + $0 % 10 }
        try Self.json(overridden.map { (Self.key($0), Self.overrideValue($0)) }).write(to: overridesURL)
        try Self.json((0..<Self.flagCount).map { (Self.key($0), Self.remoteValue($0)) }).write(to: remoteCacheURL)
    }

    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Builds the manager the way an app launch does: validate the registry, read the override
    /// file, take the provider's cached values, resolve every flag.
    func buildManager() throws -> FlagEngine {
        let registry = try FlagRegistry(definitions)
        return FlagEngine(
            registry: registry,
            setup: FlagSetup(
                buildConfiguration: .debug,
                overrideStore: JSONFileFlagStore(url: overridesURL),
                remoteProvider: CachedFileRemoteProvider(url: remoteCacheURL),
                remoteApplyPolicy: .nextLaunch))
    }

    // MARK: - Generated data

    static func key(_ index: Int) -> String { "flag_\(index)" }

    /// Eight in ten flags are Boolean, one an integer, one a string.
    static func definition(_ index: Int) -> FlagDefinition {
        switch index % 10 {
        case 8:
            return FlagDefinition(key: key(index), type: .integer, default: .int(index), owner: "team-\(index % 7)")
        case 9:
            return FlagDefinition(key: key(index), type: .string, default: .string("value-\(index)"))
        default:
            // Every fiftieth flag depends on the Boolean flag before it.
            let requires = index % 50 == 1 ? [key(index - 1)] : []
            return FlagDefinition(
                key: key(index), type: .boolean, default: .bool(index % 2 == 0), phase: index % 4,
                owner: "team-\(index % 7)", requires: requires)
        }
    }

    static func overrideValue(_ index: Int) -> String {
        switch index % 10 {
        case 8: "7"
        case 9: "\"override-\(index)\""
        default: index % 2 == 0 ? "false" : "true"
        }
    }

    static func remoteValue(_ index: Int) -> String {
        switch index % 10 {
        case 8: "\(index * 3)"
        case 9: "\"remote-\(index)\""
        default: index % 3 == 0 ? "true" : "false"
        }
    }

    static func json(_ pairs: [(String, String)]) -> Data {
        Data(("{" + pairs.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}\n").utf8)
    }
}

/// A remote provider whose on-disk cache is a JSON object of flag values, decoded when the
/// manager asks for cached values. It loads nothing over the network: `loadFlags()` returns no
/// values and the fixture uses the `.nextLaunch` policy, so only the cache affects the build.
struct CachedFileRemoteProvider: RemoteFlagProvider {
    let url: URL

    func cachedFlags() -> RemoteFlagValues? {
        guard let data = try? Data(contentsOf: url),
            let values = try? FlagValue.objectMembers(fromJSON: data)
        else { return nil }
        return RemoteFlagValues(values: values, reason: .cached, source: "cache")
    }

    func loadFlags() async throws -> RemoteFlagValues { .empty }

    func refresh() async throws -> RemoteFlagValues { .empty }
}
