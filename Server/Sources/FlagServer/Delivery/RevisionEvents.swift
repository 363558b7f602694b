import FlagEvaluation
import Foundation
import NIOCore
import Synchronization

/// The event stream's event for each revision, built once per revision and environment (every
/// open stream writes the same bytes), carrying what keeps a change from becoming a refetch storm:
///
/// - `changes`: when every flag that changed since the revision the streams saw before
///   (`since`) answers the same to every context (it has no targeting, so no fractional
///   rollout either: its answer is fixed for the revision), the new OFREP entries of those flags
///   (`flags`, as in the bulk answer) and the keys of removed flags (`removed`). A client whose
///   values are at `since` applies them and sends nothing. Left out when a flag with targeting
///   changed, appeared or went away, when the segments or flag-set metadata changed, or when
///   the changes would take more than ``maximumChangeBytes``.
/// - `refetchSpreadMs`: the window over which clients that must refetch should spread their
///   requests (each waits a random delay in `[0, spread)`): the open streams divided by
///   ``Spread/refetchesPerSecond``, at most ``Spread/maximumMilliseconds`` (60 s); left out
///   when zero.
///
/// Both are additions to OFREP's `refetchEvaluation` event, whose clients ignore members they do
/// not know and refetch as before.
///
/// It keeps the compiled environment its last event was built from, per environment, as the
/// base of the next event's `changes` (one compiled environment more per environment, held
/// until the next revision's event is built).
final class RevisionEvents: Sendable {
    /// How clients spread their refetches.
    struct Spread: Sendable, Hashable {
        /// The refetches per second the server aims to receive after a change; 0 asks for no
        /// spread.
        var refetchesPerSecond: Int = 5_000
        /// The widest spread advertised, in milliseconds (60 s): past it, the rate rises
        /// rather than the wait. Set ``refetchesPerSecond`` to what the server can answer;
        /// a tighter cap would bring back the overload the spread is there to avoid.
        var maximumMilliseconds: Int = 60_000

        /// The spread for `streams` open streams, in milliseconds.
        func milliseconds(streams: Int) -> Int {
            guard refetchesPerSecond > 0, streams > 0 else { return 0 }
            return min(maximumMilliseconds, Int((Double(streams) * 1000 / Double(refetchesPerSecond)).rounded(.up)))
        }
    }

    private struct Built {
        /// The newest compiled environment streams were told about (or opened at).
        var latest: CompiledEnvironment
        /// The one before it: the base of the event for ``latest``.
        var previous: CompiledEnvironment?
        var event: ByteBuffer?
    }

    /// The largest `changes` member sent (16 KiB); a larger change is left to refetches.
    static let maximumChangeBytes = 16 * 1024

    let spread: Spread
    private let openStreams: @Sendable () -> Int
    private let built = Mutex<[String: Built]>([:])

    /// - Parameter openStreams: The number of open event streams (the spread scales with it).
    init(spread: Spread, openStreams: @escaping @Sendable () -> Int) {
        self.spread = spread
        self.openStreams = openStreams
    }

    /// Notes that a stream opened on `compiled`: the next revision's `changes` are counted from
    /// it at the oldest.
    func observe(_ compiled: CompiledEnvironment) {
        built.withLock { built in
            guard let known = built[compiled.key] else {
                built[compiled.key] = Built(latest: compiled)
                return
            }
            if known.latest.revision < compiled.revision {
                built[compiled.key] = Built(latest: compiled, previous: known.latest)
            }
        }
    }

    /// The event of `compiled`'s revision.
    func event(for compiled: CompiledEnvironment) -> ByteBuffer {
        built.withLock { built in
            var entry = built[compiled.key] ?? Built(latest: compiled)
            if entry.latest.revision < compiled.revision {
                entry = Built(latest: compiled, previous: entry.latest)
            } else if entry.latest.revision > compiled.revision {
                // An older revision than streams already saw: no base to count changes from.
                return Self.event(revision: compiled.revision, lastModified: compiled.lastModified, changes: nil, spread: 0)
            }
            if let event = entry.event { return event }
            let changes = entry.previous.flatMap { Self.changes(from: $0, to: compiled) }
            let event = Self.event(
                revision: compiled.revision, lastModified: compiled.lastModified, changes: changes,
                spread: spread.milliseconds(streams: openStreams()))
            entry.event = event
            built[compiled.key] = entry
            return event
        }
    }

    /// The event of a revision this server does not serve (yet): a plain refetch request.
    static func event(revision: Int, lastModified: Date?, changes: JSONValue?, spread: Int) -> ByteBuffer {
        var members: [String: JSONValue] = ["type": "refetchEvaluation", "etag": .string(String(revision))]
        if let lastModified { members["lastModified"] = .int(Int(lastModified.timeIntervalSince1970.rounded(.down))) }
        if let changes { members["changes"] = changes }
        if spread > 0 { members["refetchSpreadMs"] = .int(spread) }
        return ByteBuffer(string: "id: \(revision)\nevent: message\ndata: \(JSONValue.object(members).serialized())\n\n")
    }

    /// The `changes` member from `old` to `new`, or `nil` when a client must refetch.
    static func changes(from old: CompiledEnvironment, to new: CompiledEnvironment) -> JSONValue? {
        guard old.revision < new.revision else { return nil }
        let oldTargeted = old.targetedKeys
        let newTargeted = new.targetedKeys
        guard oldTargeted == newTargeted else { return nil }
        if !newTargeted.isEmpty {
            guard let before = old.targetedDefinitions(), let after = new.targetedDefinitions(), before == after else { return nil }
        }
        var flags: [JSONValue] = []
        var removed: [JSONValue] = []
        var bytes = 0
        for key in new.sortedKeys where !newTargeted.contains(key) {
            guard let entry = new.staticEntryBytes(key) else { return nil }
            if let before = old.staticEntryBytes(key), before.elementsEqual(entry) { continue }
            bytes += entry.count + 1
            guard bytes <= maximumChangeBytes, let parsed = try? JSONValue(parsing: entry) else { return nil }
            flags.append(parsed)
        }
        for key in old.sortedKeys where new.types[key] == nil {
            bytes += key.utf8.count + 3
            guard bytes <= maximumChangeBytes else { return nil }
            removed.append(.string(key))
        }
        return ["since": .string(String(old.revision)), "flags": .array(flags), "removed": .array(removed)]
    }
}

extension CompiledEnvironment {
    /// The keys of the flags evaluated per request (on, with targeting).
    var targetedKeys: Set<String> {
        Set(bulkPieces.compactMap { if case .evaluate(let key, _) = $0 { key } else { nil } })
    }

    /// The encoded bulk entry of a flag whose answer is the same for every context.
    func staticEntryBytes(_ key: String) -> ArraySlice<UInt8>? {
        encodedEntries[key].map { bulkBytes[$0.range] }
    }

    /// What the answers of the targeted flags depend on besides the context: the flagd document
    /// this environment evaluates, without the flags that answer the same to everyone (their
    /// entries are compared as bytes). Parsed here, once per event built; `nil` if it does not
    /// parse.
    func targetedDefinitions() -> JSONValue? {
        guard case .object(var document)? = try? JSONValue(parsing: flagd.body) else { return nil }
        let targeted = targetedKeys
        if case .object(let flags)? = document["flags"] {
            document["flags"] = .object(flags.filter { targeted.contains($0.key) })
        }
        return .object(document)
    }
}
