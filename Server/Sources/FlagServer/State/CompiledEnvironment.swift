import Crypto
public import FlagEvaluation
public import Foundation
import NIOCore

/// One environment at one revision, compiled once and then only read: the evaluator of the
/// targeted flags, every other flag's OFREP entry already encoded, and the `app_config` and
/// flagd documents already serialized with their ETags.
///
/// Only a flag that is on and has a targeting rule depends on the request's context; every
/// other flag's answer is fixed for the revision (`STATIC`, `DISABLED`, or no value), so it is
/// encoded here once and a bulk answer copies those bytes. The evaluator compiles only the
/// targeted flags (and the segments they use): an environment where most flags are off or
/// untargeted holds little more than their encoded entries.
public struct CompiledEnvironment: Sendable {
    /// A run of the bulk body: bytes encoded at compile time, or a targeted flag to evaluate.
    enum BulkPiece: Sendable {
        case bytes(Range<Int>)
        case evaluate(key: String, type: FlagType)
    }

    public let key: String
    public let revision: Int
    /// When ``revision`` was committed (the writer's clock, as stored), so every replica names the
    /// same time: the `lastModified` of its events.
    public let lastModified: Date?
    /// The compiled definitions of the targeted flags (rules and segments parsed once, here).
    public let evaluator: FlagEvaluator
    /// Flag types by key, so OFREP evaluates each flag as its own type.
    public let types: [String: FlagType]
    /// Flag keys in bulk-response order.
    public let sortedKeys: [String]
    /// The bulk body with every untargeted entry in place; ``bulkPieces`` index into it.
    let bulkBytes: [UInt8]
    /// The bulk body in order: runs of ``bulkBytes`` and the targeted flags between them.
    let bulkPieces: [BulkPiece]
    /// Where each untargeted flag's entry lies in ``bulkBytes``, and whether it is an error.
    let encodedEntries: [String: (range: Range<Int>, isError: Bool)]
    /// The `app_config` body and its ETag.
    public let appConfig: (body: Data, etag: String)
    /// The flagd flag-definition file and its ETag.
    public let flagd: (body: Data, etag: String)

    /// Compiles `environment` of `state`.
    ///
    /// - Parameters:
    ///   - bucketing: How `fractional` assigns buckets (flagd's current algorithm, or the
    ///     legacy one for deployments migrating from older flagd that must keep their assignments).
    ///   - lastModified: When the environment's revision was committed.
    public init?(
        state: ServerState, environment key: String, ttlSeconds: Int, bucketing: FractionalBucketing = .current,
        lastModified: Date? = nil
    ) {
        guard let environment = state.environments[key],
            case .object(var evaluated)? = state.flagdDocument(environment: key, forEvaluation: true),
            case .object(let allFlags)? = evaluated["flags"]
        else {
            return nil
        }
        self.key = key
        revision = environment.revision
        self.lastModified = lastModified
        types = state.flags.mapValues(\.type)
        sortedKeys = state.flags.keys.sorted()
        // flagd clients get the document OFREP evaluates: the same flags, rules and metadata.
        flagd = (Data(JSONValue.object(evaluated).serialized(prettyPrinted: true).utf8), "\"\(key)-\(environment.revision)-flagd\"")

        // Targeted flags go to the evaluator; the others are evaluated once, here, and encoded.
        var targeted: [String: JSONValue] = [:]
        var fixed: [String: JSONValue] = [:]
        for (flagKey, entry) in allFlags {
            let settings = environment.settings[flagKey]
            if settings?.enabled == true, settings?.targeting != nil { targeted[flagKey] = entry } else { fixed[flagKey] = entry }
        }
        evaluated["flags"] = .object(targeted)
        evaluator = Self.evaluator(JSONValue.object(evaluated), name: key, bucketing: bucketing)
        let fixedEvaluator = Self.evaluator(["flags": .object(fixed)], name: key, bucketing: bucketing)

        var bytes: [UInt8] = []
        var pieces: [BulkPiece] = []
        var entries: [String: (range: Range<Int>, isError: Bool)] = [:]
        var runStart = 0
        let head: JSONValue = [
            ["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]
        ]
        bytes += Array(#"{"eventStreams":"#.utf8) + Array(head.serialized().utf8) + Array(#","flags":["#.utf8)
        let now = Date()
        for (index, flagKey) in sortedKeys.enumerated() {
            guard let type = types[flagKey] else { continue }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if targeted[flagKey] != nil {
                pieces.append(.bytes(runStart..<bytes.count))
                pieces.append(.evaluate(key: flagKey, type: type))
                runStart = bytes.count
            } else {
                let entry = OFREPBodies.entry(flagKey, type: type, context: .object([:]), evaluator: fixedEvaluator, now: now)
                let start = bytes.count
                bytes += Array(entry.serialized().utf8)
                entries[flagKey] = (start..<bytes.count, entry["errorCode"] != nil)
            }
        }
        let metadata: JSONValue = ["version": .string(String(environment.revision)), "environment": .string(key)]
        bytes += Array(#"],"metadata":"#.utf8) + Array(metadata.serialized().utf8) + [UInt8(ascii: "}")]
        pieces.append(.bytes(runStart..<bytes.count))
        bulkBytes = bytes
        bulkPieces = pieces.filter { if case .bytes(let range) = $0 { !range.isEmpty } else { true } }
        encodedEntries = entries

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

    /// An evaluator of every flag of `environment` (the console's explanations and previews,
    /// which show each flag's steps), or `nil` when the environment does not exist.
    static func evaluatorOfEveryFlag(
        state: ServerState, environment key: String, bucketing: FractionalBucketing
    ) -> FlagEvaluator? {
        state.flagdDocument(environment: key, forEvaluation: true).map { evaluator($0, name: key, bucketing: bucketing) }
    }

    static func evaluator(_ document: JSONValue, name: String, bucketing: FractionalBucketing) -> FlagEvaluator {
        let (definitions, _) = FlagDefinitions.load([FlagSource(name: "environment \"\(name)\"", json: document.serialized())])
        return FlagEvaluator(definitions: definitions, bucketing: bucketing)
    }

    /// The bulk-evaluation ETag: the revision and a digest of the evaluation context in its
    /// canonical form (``canonical(_:)``), so two contexts never share a cached answer, the same
    /// context sent with other whitespace, key order or number spelling does, and a new
    /// revision invalidates every one. A matching `If-None-Match` is answered before anything is
    /// evaluated; every replica computes the same ETag.
    func bulkETag(context: JSONValue) -> String {
        var hasher = SHA256()
        hasher.update(data: Data(Self.canonical(context).serialized().utf8))
        let hex = hasher.finalize().prefix(12).lowercaseHex
        return "\"\(key)-\(revision)-\(hex)\""
    }

    /// `context` as evaluation sees it: a number with no fraction is the integer it equals
    /// (`1.0`, `1e0` and `1` are one number to JSON Logic; within ±2^53, where doubles hold
    /// integers exactly), `-0` is `0`; ``JSONValue/serialized(prettyPrinted:)`` then writes object
    /// keys sorted and no whitespace.
    static func canonical(_ context: JSONValue) -> JSONValue {
        switch context {
        case .double(let number) where number.rounded() == number && abs(number) <= 9_007_199_254_740_992:
            return .int(Int(number))
        case .array(let items):
            return .array(items.map(canonical))
        case .object(let members):
            return .object(members.mapValues(canonical))
        default:
            return context
        }
    }
}
