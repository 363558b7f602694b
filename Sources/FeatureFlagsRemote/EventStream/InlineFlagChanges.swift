import FeatureFlags
import Foundation

/// The `changes` a flag server may put in a `refetchEvaluation` event (an addition to OFREP,
/// which other clients ignore): the new bulk entries of the flags that changed, when each
/// answers the same to every context, and the keys of removed flags. A client whose values are
/// at `since` (the bulk answer's `metadata.version`) applies them instead of refetching.
struct InlineFlagChanges: Sendable, Hashable {
    /// The most entries and removed keys read from one event (1,000 each); an event with more
    /// is treated as carrying none, and the client refetches.
    static let maximumCount = 1_000

    /// The configuration version these changes apply to.
    var since: String
    /// OFREP evaluation entries (objects with a string `key`), as the bulk answer would list them.
    var entries: [String: FlagValue]
    /// Keys of flags that no longer exist.
    var removed: Set<String>

    /// Reads the event's `changes` member; `nil` when absent or not in this shape.
    init?(event members: [String: FlagValue]) {
        guard case .object(let changes)? = members["changes"], case .string(let since)? = changes["since"],
            !since.isEmpty, since.utf8.count <= EventConfigurationMetadata.maximumLength,
            case .array(let flags)? = changes["flags"], flags.count <= Self.maximumCount
        else { return nil }
        var entries: [String: FlagValue] = [:]
        for flag in flags {
            guard case .object(let fields) = flag, case .string(let key)? = fields["key"] else { return nil }
            entries[key] = flag
        }
        var removed: Set<String> = []
        if let value = changes["removed"] {
            guard case .array(let keys) = value, keys.count <= Self.maximumCount else { return nil }
            for key in keys {
                guard case .string(let text) = key else { return nil }
                removed.insert(text)
            }
        }
        self.since = since
        self.entries = entries
        self.removed = removed
    }

    init(since: String, entries: [String: FlagValue], removed: Set<String> = []) {
        self.since = since
        self.entries = entries
        self.removed = removed
    }

    /// What applying the changes to an OFREP bulk payload came to.
    enum Outcome: Equatable {
        /// The payload with the changes applied, at `version`.
        case applied(Data)
        /// The payload is at the event's version already.
        case current
        /// The payload is at another version (or is not an OFREP bulk answer): refetch.
        case mismatch
    }

    /// Applies the changes to `payload` (an OFREP bulk answer whose `metadata.version` must be
    /// ``since``), giving the payload at `version`: changed entries replaced or added, removed
    /// ones dropped, the rest (and every other member) kept.
    func apply(to payload: Data, version: String) -> Outcome {
        guard case .object(var root)? = try? FlagValue(jsonData: payload), case .array(let flags)? = root["flags"] else {
            return .mismatch
        }
        var metadata: [String: FlagValue] = [:]
        if case .object(let members)? = root["metadata"] { metadata = members }
        switch metadata["version"] {
        case .string(version)?: return .current
        case .string(since)?: break
        default: return .mismatch
        }
        var pending = entries
        var updated: [FlagValue] = []
        updated.reserveCapacity(flags.count + entries.count)
        for flag in flags {
            guard case .object(let fields) = flag, case .string(let key)? = fields["key"] else {
                updated.append(flag)
                continue
            }
            if removed.contains(key) { continue }
            updated.append(pending.removeValue(forKey: key) ?? flag)
        }
        updated += pending.keys.sorted().compactMap { pending[$0] }
        root["flags"] = .array(updated)
        metadata["version"] = .string(version)
        root["metadata"] = .object(metadata)
        guard let data = try? JSONEncoder().encode(FlagValue.object(root)) else { return .mismatch }
        return .applied(data)
    }
}
