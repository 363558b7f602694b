import Crypto
public import FlagEvaluation
import FlagServerModel
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

    /// The environment's key.
    public let key: String
    /// The revision compiled.
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
    /// How many flags the state held, archived ones (not served, so not in ``types``) included:
    /// the next revision compares it to see whether flags were added or deleted.
    let definedFlags: Int
    /// The bulk body with every untargeted entry in place; ``bulkPieces`` index into it.
    let bulkBytes: [UInt8]
    /// The bulk body in order: runs of ``bulkBytes`` and the targeted flags between them.
    let bulkPieces: [BulkPiece]
    /// The `app_config` body and its ETag.
    public let appConfig: (body: Data, etag: String)
    /// The flagd flag-definition file and its ETag.
    public let flagd: (body: Data, etag: String)
    /// The bulk body's `eventIngestion` member, serialized (empty without one): part of the bulk
    /// ETag, so that a body with it and one without never share an ETag.
    let eventIngestionBytes: [UInt8]

    // Per flag, by its position in ``sortedKeys``: what the next revision copies when the flag did
    // not change, so that a write touching one flag neither hashes nor copies the others.
    /// The position of each key in ``sortedKeys``.
    let positions: [String: Int]
    /// Whether the flag is on with a rule (evaluated per request).
    let targeted: [Bool]
    /// Where the flag's entry lies in ``bulkBytes`` (empty for a targeted flag), and whether it is an error.
    let entries: [(range: Range<Int>, isError: Bool)]
    /// Where the flag's member (`"key": {…}` with the newline before it) lies in ``flagd``'s body.
    let flagdRanges: [Range<Int>?]
    /// Where the flag's member (`"key":value`) lies in ``appConfig``'s body, for a served flag,
    /// and whether it is under `flags` (Booleans) rather than `config`.
    let appConfigMembers: [(range: Range<Int>, isBoolean: Bool)?]

    /// The encoded entry of an untargeted flag, and whether it is an error.
    func encodedEntry(_ key: String) -> (range: Range<Int>, isError: Bool)? {
        guard let position = positions[key], !targeted[position] else { return nil }
        return entries[position]
    }

    /// Every untargeted flag's encoded entry by key.
    var encodedEntries: [String: (range: Range<Int>, isError: Bool)] {
        var result: [String: (range: Range<Int>, isError: Bool)] = [:]
        for (position, key) in sortedKeys.enumerated() where !targeted[position] { result[key] = entries[position] }
        return result
    }

    /// Compiles `environment` of `state`.
    ///
    /// - Parameters:
    ///   - bucketing: How `fractional` assigns buckets (flagd's current algorithm, or the
    ///     legacy one for deployments migrating from older flagd that must keep their assignments).
    ///   - lastModified: When the environment's revision was committed.
    ///   - eventIngestion: The bulk body's `eventIngestion` member (where apps send events), or
    ///     `nil` for none (a server without an event store).
    public init?(
        state: ServerState, environment key: String, ttlSeconds: Int, bucketing: FractionalBucketing = .current,
        lastModified: Date? = nil, eventIngestion: JSONValue? = nil
    ) {
        self.init(
            previous: nil, recompiling: [], state: state, environment: key, ttlSeconds: ttlSeconds, bucketing: bucketing,
            lastModified: lastModified, eventIngestion: eventIngestion)
    }

    /// Compiles the environment of `previous` at its revision in `state`, after a write that
    /// touched `flags` there (and its segments, if `segmentsChanged`): only those flags (and,
    /// when segments changed, the flags whose rules use segments) are compiled and encoded again;
    /// every other flag's compiled definition and encoded pieces are copied from `previous`. The
    /// result is the one ``init(state:environment:ttlSeconds:bucketing:lastModified:)`` gives.
    public init?(
        updating previous: CompiledEnvironment, state: ServerState, flags: Set<String>, segmentsChanged: Bool,
        ttlSeconds: Int, bucketing: FractionalBucketing = .current, lastModified: Date? = nil, eventIngestion: JSONValue? = nil
    ) {
        var recompiling = flags
        if segmentsChanged, let environment = state.environments[previous.key] {
            for (flag, settings) in environment.settings where settings.targeting.map(StateValidator.usesSegments) == true {
                recompiling.insert(flag)
            }
        }
        self.init(
            previous: previous, recompiling: recompiling, state: state, environment: previous.key, ttlSeconds: ttlSeconds,
            bucketing: bucketing, lastModified: lastModified, eventIngestion: eventIngestion)
    }

    /// Compiles every flag (no `previous`), or the flags of `recompiling` and copies the others from `previous`.
    private init?(
        previous: CompiledEnvironment?, recompiling: Set<String>, state: ServerState, environment key: String,
        ttlSeconds: Int, bucketing: FractionalBucketing, lastModified: Date?, eventIngestion: JSONValue?
    ) {
        guard let environment = state.environments[key] else { return nil }
        self.key = key
        revision = environment.revision
        self.lastModified = lastModified
        definedFlags = state.flags.count

        // Served flags: archived ones are answered as flags that do not exist.
        let served = { (flagKey: String) -> FlagRecord? in state.flags[flagKey].flatMap { $0.archived ? nil : $0 } }
        // The flag keys stay as they were unless a touched flag was added, deleted, archived or restored.
        let keysUnchanged =
            previous.map { previous in
                previous.definedFlags == state.flags.count
                    && recompiling.allSatisfy { (previous.types[$0] == nil) == (served($0) == nil) }
            } ?? false
        if let previous, keysUnchanged {
            var types = previous.types
            for flag in recompiling { if let record = served(flag) { types[flag] = record.type } }
            self.types = types
            sortedKeys = previous.sortedKeys
            positions = previous.positions
        } else {
            types = state.flags.filter { !$0.value.archived }.mapValues(\.type)
            sortedKeys = types.keys.sorted()
            positions = Dictionary(uniqueKeysWithValues: sortedKeys.enumerated().map { ($1, $0) })
        }
        let count = sortedKeys.count
        // Per position, where the flag was in `previous` when it is copied from there (nil: compile it).
        var old: [Int?]
        if previous != nil, keysUnchanged {
            old = Array(0..<count)
            for flag in recompiling { if let position = positions[flag] { old[position] = nil } }
        } else if let previous {
            old = sortedKeys.map { recompiling.contains($0) ? nil : previous.positions[$0] }
        } else {
            old = Array(repeating: nil, count: count)
        }

        // The loops below read `previous` through these (binding the optional there would copy
        // the whole struct, each of its references retained, once per flag).
        let previousTargeted = previous?.targeted ?? []
        let previousEntries = previous?.entries ?? []
        let previousFlagdRanges = previous?.flagdRanges ?? []
        let previousAppConfigMembers = previous?.appConfigMembers ?? []

        // Targeted flags go to the evaluator; the others are evaluated once, here, and encoded.
        var targeted = [Bool](repeating: false, count: count)
        var freshTargeted: [String: JSONValue] = [:]
        var freshFixed: [String: JSONValue] = [:]
        var freshFlagd: [String: JSONValue] = [:]
        for position in 0..<count {
            if let from = old[position] {
                targeted[position] = previousTargeted[from]
                continue
            }
            let flagKey = sortedKeys[position]
            guard let flag = served(flagKey), let settings = environment.settings[flagKey] else { continue }
            let entry = state.flagdEntry(flag, settings, forEvaluation: true)
            freshFlagd[flagKey] = entry
            if settings.enabled && settings.targeting != nil {
                targeted[position] = true
                freshTargeted[flagKey] = entry
            } else {
                freshFixed[flagKey] = entry
            }
        }
        self.targeted = targeted
        var targetedDocument: [String: JSONValue] = [
            "$schema": "https://flagd.dev/schema/v0/flags.json", "flags": .object(freshTargeted),
        ]
        if !environment.segments.isEmpty { targetedDocument["$evaluators"] = .object(environment.segments) }
        let compiled = Self.evaluator(.object(targetedDocument), name: key, bucketing: bucketing)
        if let previous {
            let replaced = keysUnchanged ? recompiling : Set(previous.sortedKeys).subtracting(sortedKeys).union(recompiling)
            evaluator = FlagEvaluator(
                definitions: previous.evaluator.definitions.merging(compiled.definitions, removing: replaced),
                bucketing: bucketing)
        } else {
            evaluator = compiled
        }
        let fixedEvaluator = Self.evaluator(["flags": .object(freshFixed)], name: key, bucketing: bucketing)

        // The bulk body: untargeted entries copied from `previous` or encoded now.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(previous?.bulkBytes.count ?? 0)
        var pieces: [BulkPiece] = []
        var entries: [(range: Range<Int>, isError: Bool)] = []
        entries.reserveCapacity(count)
        var runStart = 0
        let head: JSONValue = [
            ["type": "sse", "endpoint": ["requestUri": "/ofrep/v1/events"], "inactivityDelaySec": 120]
        ]
        // Members in key order, as `JSONValue.serialized()` writes them: `eventIngestion` (only
        // on a server that takes events), `eventStreams`, `flags`, `metadata`.
        bytes += Array("{".utf8)
        eventIngestionBytes = eventIngestion.map { Array($0.serialized().utf8) } ?? []
        if let eventIngestion {
            bytes += Array(#""eventIngestion":"#.utf8) + Array(eventIngestion.serialized().utf8) + Array(",".utf8)
        }
        bytes += Array(#""eventStreams":"#.utf8) + Array(head.serialized().utf8) + Array(#","flags":["#.utf8)
        let now = Date()
        // The closures below read these, not `self`, which is not initialized yet.
        let keys = sortedKeys, typeOf = types
        let previousBulk = previous?.bulkBytes ?? []
        previousBulk.withUnsafeBufferPointer { previousBytes in
            for position in 0..<count {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                if targeted[position] {
                    let flagKey = keys[position]
                    pieces.append(.bytes(runStart..<bytes.count))
                    pieces.append(.evaluate(key: flagKey, type: typeOf[flagKey] ?? .object))
                    runStart = bytes.count
                    entries.append((bytes.count..<bytes.count, false))
                } else if let from = old[position] {
                    let encoded = previousEntries[from]
                    let start = bytes.count
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: previousBytes[encoded.range]))
                    entries.append((start..<bytes.count, encoded.isError))
                } else {
                    let flagKey = keys[position]
                    let entry = OFREPBodies.entry(
                        flagKey, type: typeOf[flagKey] ?? .object, context: .object([:]), evaluator: fixedEvaluator, now: now)
                    let start = bytes.count
                    bytes += Array(entry.serialized().utf8)
                    entries.append((start..<bytes.count, entry["errorCode"] != nil))
                }
            }
        }
        let metadata: JSONValue = ["version": .string(String(environment.revision)), "environment": .string(key)]
        bytes += Array(#"],"metadata":"#.utf8) + Array(metadata.serialized().utf8) + [UInt8(ascii: "}")]
        pieces.append(.bytes(runStart..<bytes.count))
        bulkBytes = bytes
        bulkPieces = pieces.filter { if case .bytes(let range) = $0 { !range.isEmpty } else { true } }
        self.entries = entries

        // flagd clients get the document OFREP evaluates: the same flags, rules and metadata,
        // written as `JSONValue.serialized(prettyPrinted: true)` writes the whole document.
        var documentHead: [String: JSONValue] = ["$schema": "https://flagd.dev/schema/v0/flags.json", "flags": .object([:])]
        if !environment.segments.isEmpty { documentHead["$evaluators"] = .object(environment.segments) }
        var flagdBytes = Array(JSONValue.object(documentHead).serialized(prettyPrinted: true).utf8)
        flagdBytes.reserveCapacity(previous?.flagd.body.count ?? 0)
        var flagdRanges = [Range<Int>?](repeating: nil, count: count)
        // `"flags": {}\n}` ends the head: open the object again, and close it after the members.
        let emptyEnd = Array("{}\n}".utf8)
        flagdBytes.removeLast(emptyEnd.count)
        flagdBytes.append(UInt8(ascii: "{"))
        var wroteMember = false
        (previous?.flagd.body ?? Data()).withUnsafeBytes { raw in
            let previousBytes = raw.assumingMemoryBound(to: UInt8.self)
            for position in 0..<count {
                let member: UnsafeBufferPointer<UInt8>?
                var fresh: [UInt8] = []
                if let from = old[position] {
                    member = previousFlagdRanges[from].map { UnsafeBufferPointer(rebasing: previousBytes[$0]) }
                } else if let entry = freshFlagd[keys[position]] {
                    fresh = Self.flagdMember(keys[position], entry)
                    member = nil
                } else {
                    continue
                }
                guard member != nil || !fresh.isEmpty else { continue }
                if wroteMember { flagdBytes.append(UInt8(ascii: ",")) }
                wroteMember = true
                let start = flagdBytes.count
                if let member { flagdBytes.append(contentsOf: member) } else { flagdBytes += fresh }
                flagdRanges[position] = start..<flagdBytes.count
            }
        }
        if wroteMember {
            flagdBytes += Array("\n  }\n}".utf8)
        } else {
            flagdBytes.removeLast()
            flagdBytes += emptyEnd
        }
        flagd = (Data(flagdBytes), "\"\(key)-\(environment.revision)-flagd\"")
        self.flagdRanges = flagdRanges

        // app_config: the enabled flags' default values, Booleans under `flags`, others under `config`.
        var freshMembers: [Int: (bytes: [UInt8], isBoolean: Bool)] = [:]
        for position in 0..<count where old[position] == nil {
            let flagKey = keys[position]
            guard let settings = environment.settings[flagKey], settings.enabled, let flag = served(flagKey),
                let variant = settings.defaultVariant, let value = flag.variants[variant]
            else { continue }
            freshMembers[position] = (Array(JSONValue.object([flagKey: value]).serialized().utf8.dropFirst().dropLast()), flag.type == .boolean)
        }
        var configBytes: [UInt8] = Array(#"{"config":{"#.utf8)
        configBytes.reserveCapacity(previous?.appConfig.body.count ?? 0)
        var appConfigMembers = [(range: Range<Int>, isBoolean: Bool)?](repeating: nil, count: count)
        (previous?.appConfig.body ?? Data()).withUnsafeBytes { raw in
            let previousBytes = raw.assumingMemoryBound(to: UInt8.self)
            for booleans in [false, true] {
                if booleans { configBytes += Array(#"},"flags":{"#.utf8) }
                var wrote = false
                for position in 0..<count {
                    if let from = old[position] {
                        guard let member = previousAppConfigMembers[from], member.isBoolean == booleans else { continue }
                        if wrote { configBytes.append(UInt8(ascii: ",")) }
                        let start = configBytes.count
                        configBytes.append(contentsOf: UnsafeBufferPointer(rebasing: previousBytes[member.range]))
                        appConfigMembers[position] = (start..<configBytes.count, booleans)
                    } else if let member = freshMembers[position], member.isBoolean == booleans {
                        if wrote { configBytes.append(UInt8(ascii: ",")) }
                        let start = configBytes.count
                        configBytes += member.bytes
                        appConfigMembers[position] = (start..<configBytes.count, booleans)
                    } else {
                        continue
                    }
                    wrote = true
                }
            }
        }
        configBytes += Array(#"},"schemaVersion":1,"ttlSeconds":\#(ttlSeconds)}"#.utf8)
        appConfig = (Data(configBytes), "\"\(key)-\(environment.revision)-app_config\"")
        self.appConfigMembers = appConfigMembers
    }

    /// One flag's member of the pretty-printed flagd document (`\n    "key": {…}`), cut out of a
    /// document holding only it, so that it is indented as in the whole document.
    static func flagdMember(_ key: String, _ entry: JSONValue) -> [UInt8] {
        let text = Array(JSONValue.object(["flags": .object([key: entry])]).serialized(prettyPrinted: true).utf8)
        let prefix = Array("{\n  \"flags\": {".utf8).count
        let suffix = Array("\n  }\n}".utf8).count
        return Array(text[prefix..<(text.count - suffix)])
    }

    /// An evaluator of every served flag of `environment` (the console's explanations and previews,
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
        // A server that advertises ingestion answers other bytes for the same context and revision.
        if !eventIngestionBytes.isEmpty { hasher.update(data: Data([0] + eventIngestionBytes)) }
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
