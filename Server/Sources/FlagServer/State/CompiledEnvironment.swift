import Crypto
public import FlagEvaluation
public import Foundation

/// One environment at one revision, compiled once and then only read: the evaluator, and the
/// `app_config` and flagd documents already serialized with their ETags.
public struct CompiledEnvironment: Sendable {
    public let key: String
    public let revision: Int
    /// When ``revision`` was committed (the writer's clock, as stored), so every replica names the
    /// same time: the `lastModified` of its events.
    public let lastModified: Date?
    /// The compiled definitions (targeting rules and segments parsed once, here).
    public let evaluator: FlagEvaluator
    /// Flag types by key, so OFREP evaluates each flag as its own type.
    public let types: [String: FlagType]
    /// Flag keys in bulk-response order.
    public let sortedKeys: [String]
    /// The `app_config` body and its ETag.
    public let appConfig: (body: Data, etag: String)
    /// The flagd flag-definition file and its ETag.
    public let flagd: (body: Data, etag: String)

    /// Compiles `environment` of `state`.
    ///
    /// - Parameters:
    ///   - bucketing: How `fractional` assigns buckets (flagd's current algorithm, or the
    ///   legacy one for deployments migrating from older flagd that must keep their assignments).
    ///   - lastModified: When the environment's revision was committed.
    public init?(
        state: ServerState, environment key: String, ttlSeconds: Int, bucketing: FractionalBucketing = .current,
        lastModified: Date? = nil
    ) {
        guard let environment = state.environments[key], let document = state.flagdDocument(environment: key),
            let evaluated = state.flagdDocument(environment: key, forEvaluation: true)
        else {
            return nil
        }
        self.key = key
        revision = environment.revision
        self.lastModified = lastModified
        let flagdText = document.serialized(prettyPrinted: true)
        let (definitions, _) = FlagDefinitions.load([FlagSource(name: "environment \"\(key)\"", json: evaluated.serialized())])
        evaluator = FlagEvaluator(definitions: definitions, bucketing: bucketing)
        types = state.flags.mapValues(\.type)
        sortedKeys = state.flags.keys.sorted()
        flagd = (Data(flagdText.utf8), "\"\(key)-\(environment.revision)-flagd\"")

        var flags: [String: JSONValue] = [:]
        var config: [String: JSONValue] = [:]
        for (flagKey, settings) in environment.settings where settings.enabled {
            guard let flag = state.flags[flagKey], let variant = settings.defaultVariant, let value = flag.variants[variant] else {
                continue
            }
            if flag.type == .boolean { flags[flagKey] = value } else { config[flagKey] = value }
        }
        let body: JSONValue = [
            "schemaVersion": 1, "flags": .object(flags), "config": .object(config), "ttlSeconds": .int(ttlSeconds),
        ]
        appConfig = (Data(body.serialized().utf8), "\"\(key)-\(environment.revision)-app_config\"")
    }

    /// The bulk-evaluation ETag: the revision and a digest of the context, so two contexts never
    /// share a cached answer and a new revision invalidates every one.
    public func bulkETag(context: JSONValue) -> String {
        let digest = SHA256.hash(data: Data(context.serialized().utf8))
        let hex = digest.prefix(12).lowercaseHex
        return "\"\(key)-\(revision)-\(hex)\""
    }
}
