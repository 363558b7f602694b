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

    /// Where each flag's member (`"key": {…}` with the newline before it) lies in ``flagd``'s body.
    let flagdRanges: [String: Range<Int>]
    /// Where each served flag's member (`"key":value`) lies in ``appConfig``'s body.
    let appConfigRanges: [String: Range<Int>]

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
        self.init(
            previous: nil, recompiling: [], state: state, environment: key, ttlSeconds: ttlSeconds, bucketing: bucketing,
            lastModified: lastModified)
    }

    /// Compiles the environment of `previous` at its revision in `state`, after a write that
    /// touched `flags` there (and its segments, if `segmentsChanged`): only those flags (and,
    /// when segments changed, the flags whose rules use segments) are compiled and encoded again;
    /// every other flag's compiled definition and encoded pieces are taken from `previous`. The
    /// result is the one ``init(state:environment:ttlSeconds:bucketing:lastModified:)`` gives.
    public init?(
        updating previous: CompiledEnvironment, state: ServerState, flags: Set<String>, segmentsChanged: Bool,
        ttlSeconds: Int, bucketing: FractionalBucketing = .current, lastModified: Date? = nil
    ) {
        var recompiling = flags
        if segmentsChanged, let environment = state.environments[previous.key] {
            for (flag, settings) in environment.settings where settings.targeting.map(StateValidator.usesSegments) == true {
                recompiling.insert(flag)
            }
        }
        self.init(
            previous: previous, recompiling: recompiling, state: state, environment: previous.key, ttlSeconds: ttlSeconds,
            bucketing: bucketing, lastModified: lastModified)
    }

    /// Compiles every flag (no `previous`), or the flags of `recompiling` and copies the others from `previous`.
    private init?(
        previous: CompiledEnvironment?, recompiling: Set<String>, state: ServerState, environment key: String,
        ttlSeconds: Int, bucketing: FractionalBucketing, lastModified: Date?
    ) {
        guard let environment = state.environments[key] else { return nil }
        func isFresh(_ flag: String) -> Bool { previous == nil || recompiling.contains(flag) }
        self.key = key
        revision = environment.revision
        self.lastModified = lastModified

        // The flag keys stay as they were unless a touched flag was added or deleted.
        if let previous, previous.types.count == state.flags.count,
            recompiling.allSatisfy({ (previous.types[$0] == nil) == (state.flags[$0] == nil) })
        {
            var types = previous.types
            for flag in recompiling { types[flag] = state.flags[flag]?.type }
            self.types = types
            sortedKeys = previous.sortedKeys
        } else {
            types = state.flags.mapValues(\.type)
            sortedKeys = state.flags.keys.sorted()
        }

        // Targeted flags go to the evaluator; the others are evaluated once, here, and encoded.
        var targeted: Set<String> = []
        var freshTargeted: [String: JSONValue] = [:]
        var freshFixed: [String: JSONValue] = [:]
        var freshFlagd: [String: JSONValue] = [:]
        for flagKey in sortedKeys {
            guard let flag = state.flags[flagKey], let settings = environment.settings[flagKey] else { continue }
            let isTargeted = settings.enabled && settings.targeting != nil
            if isTargeted { targeted.insert(flagKey) }
            guard isFresh(flagKey) else { continue }
            let entry = state.flagdEntry(flag, settings, forEvaluation: true)
            freshFlagd[flagKey] = entry
            if isTargeted { freshTargeted[flagKey] = entry } else { freshFixed[flagKey] = entry }
        }
        var targetedDocument: [String: JSONValue] = [
            "$schema": "https://flagd.dev/schema/v0/flags.json", "flags": .object(freshTargeted),
        ]
        if !environment.segments.isEmpty { targetedDocument["$evaluators"] = .object(environment.segments) }
        let compiled = Self.evaluator(.object(targetedDocument), name: key, bucketing: bucketing)
        if let previous {
            evaluator = FlagEvaluator(
                definitions: previous.evaluator.definitions.merging(compiled.definitions, removing: recompiling),
                bucketing: bucketing)
        } else {
            evaluator = compiled
        }
        let fixedEvaluator = Self.evaluator(["flags": .object(freshFixed)], name: key, bucketing: bucketing)

        // The bulk body: untargeted entries copied from `previous` or encoded now.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(previous?.bulkBytes.count ?? 0)
        var pieces: [BulkPiece] = []
        var entries: [String: (range: Range<Int>, isError: Bool)] = [:]
        entries.reserveCapacity(sortedKeys.count)
        var runStart = 0
        let head: JSONValue = [
            ["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]
        ]
        bytes += Array(#"{"eventStreams":"#.utf8) + Array(head.serialized().utf8) + Array(#","flags":["#.utf8)
        let now = Date()
        for (index, flagKey) in sortedKeys.enumerated() {
            guard let type = types[flagKey] else { continue }
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            if targeted.contains(flagKey) {
                pieces.append(.bytes(runStart..<bytes.count))
                pieces.append(.evaluate(key: flagKey, type: type))
                runStart = bytes.count
            } else if !isFresh(flagKey), let previous, let encoded = previous.encodedEntries[flagKey] {
                let start = bytes.count
                bytes += previous.bulkBytes[encoded.range]
                entries[flagKey] = (start..<bytes.count, encoded.isError)
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

        // flagd clients get the document OFREP evaluates: the same flags, rules and metadata,
        // written as `JSONValue.serialized(prettyPrinted: true)` writes the whole document.
        var documentHead: [String: JSONValue] = ["$schema": "https://flagd.dev/schema/v0/flags.json", "flags": .object([:])]
        if !environment.segments.isEmpty { documentHead["$evaluators"] = .object(environment.segments) }
        var flagdBytes = Array(JSONValue.object(documentHead).serialized(prettyPrinted: true).utf8)
        var flagdRanges: [String: Range<Int>] = [:]
        flagdRanges.reserveCapacity(sortedKeys.count)
        let members = sortedKeys.filter { environment.settings[$0] != nil && state.flags[$0] != nil }
        if !members.isEmpty {
            // `"flags": {}\n}` ends the head: open the object again and close it after the members.
            flagdBytes.removeLast(Array("{}\n}".utf8).count)
            flagdBytes.append(UInt8(ascii: "{"))
            for (index, flagKey) in members.enumerated() {
                if index > 0 { flagdBytes.append(UInt8(ascii: ",")) }
                let start = flagdBytes.count
                if !isFresh(flagKey), let previous, let range = previous.flagdRanges[flagKey] {
                    flagdBytes += previous.flagd.body[range]
                } else if let entry = freshFlagd[flagKey] {
                    flagdBytes += Self.flagdMember(flagKey, entry)
                }
                flagdRanges[flagKey] = start..<flagdBytes.count
            }
            flagdBytes += Array("\n  }\n}".utf8)
        }
        flagd = (Data(flagdBytes), "\"\(key)-\(environment.revision)-flagd\"")
        self.flagdRanges = flagdRanges

        // app_config: the enabled flags' default values, Booleans under `flags`, others under `config`.
        var booleans: [String] = []
        var values: [String] = []
        for flagKey in members {
            guard let settings = environment.settings[flagKey], settings.enabled, let flag = state.flags[flagKey],
                let variant = settings.defaultVariant, flag.variants[variant] != nil
            else { continue }
            if flag.type == .boolean { booleans.append(flagKey) } else { values.append(flagKey) }
        }
        var configBytes: [UInt8] = Array(#"{"config":{"#.utf8)
        var appConfigRanges: [String: Range<Int>] = [:]
        func appendMembers(_ keys: [String]) {
            for (index, flagKey) in keys.enumerated() {
                if index > 0 { configBytes.append(UInt8(ascii: ",")) }
                let start = configBytes.count
                if !isFresh(flagKey), let previous, let range = previous.appConfigRanges[flagKey] {
                    configBytes += previous.appConfig.body[range]
                } else if let flag = state.flags[flagKey], let variant = environment.settings[flagKey]?.defaultVariant,
                    let value = flag.variants[variant]
                {
                    configBytes += Array(JSONValue.object([flagKey: value]).serialized().utf8.dropFirst().dropLast())
                }
                appConfigRanges[flagKey] = start..<configBytes.count
            }
        }
        appendMembers(values)
        configBytes += Array(#"},"flags":{"#.utf8)
        appendMembers(booleans)
        configBytes += Array(#"},"schemaVersion":1,"ttlSeconds":\#(ttlSeconds)}"#.utf8)
        appConfig = (Data(configBytes), "\"\(key)-\(environment.revision)-app_config\"")
        self.appConfigRanges = appConfigRanges
    }

    /// One flag's member of the pretty-printed flagd document (`\n    "key": {…}`), cut out of a
    /// document holding only it, so that it is indented as in the whole document.
    static func flagdMember(_ key: String, _ entry: JSONValue) -> [UInt8] {
        let text = Array(JSONValue.object(["flags": .object([key: entry])]).serialized(prettyPrinted: true).utf8)
        let prefix = Array("{\n  \"flags\": {".utf8).count
        let suffix = Array("\n  }\n}".utf8).count
        return Array(text[prefix..<(text.count - suffix)])
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
