import FlagEvaluation
import FlagServerModel
import Foundation

/// The audit read as a changelog: the entries one write left in several environments (same time,
/// actor, reason, subject and key) become one change, told in words first ("turned checkout on
/// in staging: 10 % rollout of on", "created checkout, off everywhere"); the field diff stays
/// with each environment's entry for whoever asks for it.
struct Changelog: Sendable {
    struct Change: Sendable {
        var time: Date
        var actor: String
        var reason: String?
        var subject: AuditEntry.Subject
        var key: String
        /// The entries of the change, one per environment, in the environments' kept order.
        var entries: [AuditEntry]
        /// What happened, in words, without the actor ("turned checkout off in production").
        var summary: String
        /// Whether the change restored an earlier revision.
        var isRevert: Bool { entries.contains { $0.revertedTo != nil } }
    }

    var changes: [Change]

    /// Groups `entries` (any order) into changes, newest first.
    /// - Parameter environments: The environments in their kept order; `everywhere` is said of a
    ///   change that covers all of them.
    init(_ entries: [AuditEntry], environments: [String]) {
        let rank = Dictionary(environments.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let sorted = entries.sorted { ($0.time, $0.revision) > ($1.time, $1.revision) }
        var groups: [[AuditEntry]] = []
        for entry in sorted {
            if let last = groups.last?.first, last.time == entry.time, last.actor == entry.actor, last.reason == entry.reason,
                last.subject == entry.subject, last.key == entry.key,
                !groups[groups.count - 1].contains(where: { $0.environment == entry.environment })
            {
                groups[groups.count - 1].append(entry)
            } else {
                groups.append([entry])
            }
        }
        changes = groups.map { group in
            let ordered = group.sorted { (rank[$0.environment] ?? Int.max, $0.environment) < (rank[$1.environment] ?? Int.max, $1.environment) }
            let first = ordered[0]
            return Change(
                time: first.time, actor: first.actor, reason: first.reason, subject: first.subject, key: first.key, entries: ordered,
                summary: Self.summary(of: ordered, environments: environments))
        }
    }

    /// `names` as English prose: "a", "a and b", "a, b and c".
    static func list(_ names: [String]) -> String {
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    /// "in staging and production", or "everywhere" when `names` are all the environments.
    static func place(_ names: [String], environments: [String]) -> String {
        names.count > 1 && Set(names) == Set(environments) ? "everywhere" : "in " + list(names)
    }

    static func summary(of entries: [AuditEntry], environments: [String]) -> String {
        let key = entries[0].key
        switch entries[0].subject {
        case .flag: return flagSummary(entries, key: key, environments: environments)
        case .segment, .environment, .user, .approvalRule, .webhook, .schedule:
            let noun = entries[0].subject == .approvalRule ? "approval rule" : entries[0].subject.rawValue
            // An environment's own change needs no "in": it is the place.
            let names = entries.map(\.environment)
            let where_ = entries[0].subject == .environment && names == [key] ? "" : " " + place(names, environments: environments)
            if entries.allSatisfy({ $0.before == nil }) { return "created \(noun) \(key)\(where_)" }
            if entries.allSatisfy({ $0.after == nil }) { return "deleted \(noun) \(key)\(where_)" }
            return "changed \(noun) \(key)\(where_)"
        }
    }

    /// The flag and its settings as one environment's audit view records them.
    static func view(_ json: JSONValue?) -> (flag: FlagRecord?, settings: FlagSettings?)? {
        guard let json else { return nil }
        return (try? json["flag"]?.decoded(as: FlagRecord.self), try? json["settings"]?.decoded(as: FlagSettings.self))
    }

    static func flagSummary(_ entries: [AuditEntry], key: String, environments: [String]) -> String {
        // Parts of the sentence, each with the environments it is true of, in first-seen order.
        var parts: [(text: String, environments: [String])] = []
        func add(_ text: String, _ environment: String) {
            if let index = parts.firstIndex(where: { $0.text == text }) {
                parts[index].environments.append(environment)
            } else {
                parts.append((text, [environment]))
            }
        }
        if entries.allSatisfy({ $0.before == nil }) {
            for entry in entries {
                let after = view(entry.after)
                add(after?.settings.map { ServingWords(flag: after?.flag, settings: $0).text } ?? "off", entry.environment)
            }
            return "created \(key), " + parts.map { "\($0.text) \(place($0.environments, environments: environments))" }.joined(separator: "; ")
        }
        if entries.allSatisfy({ $0.after == nil }) {
            return "deleted \(key) \(place(entries.map(\.environment), environments: environments))"
        }
        // Archiving and restoring change nothing else, in every environment at once.
        if let old = view(entries[0].before)?.flag, let new = view(entries[0].after)?.flag, old.archived != new.archived {
            return new.archived ? "archived \(key)" : "restored \(key)"
        }
        var definition: Set<String> = []
        for entry in entries {
            let before = view(entry.before)
            let after = view(entry.after)
            if let revision = entry.revertedTo {
                let words = after?.settings.map { ServingWords(flag: after?.flag, settings: $0).text } ?? "deleted"
                add("reverted \(key) to revision \(revision): \(words)", entry.environment)
                continue
            }
            guard let newSettings = after?.settings else {
                add("deleted \(key)", entry.environment)
                continue
            }
            let words = ServingWords(flag: after?.flag, settings: newSettings)
            if let oldSettings = before?.settings, oldSettings != newSettings {
                if oldSettings.enabled != newSettings.enabled {
                    add(newSettings.enabled ? "turned \(key) on: \(words.plan)" : "turned \(key) off", entry.environment)
                } else if newSettings.enabled {
                    add("changed \(key): now \(words.plan)", entry.environment)
                } else {
                    add("changed \(key) while off: once on, \(words.plan)", entry.environment)
                }
            }
            if let old = before?.flag, let new = after?.flag, old != new {
                definition.formUnion(definitionFields(old, new))
            }
        }
        var sentences = parts.map { part -> String in
            // "turned checkout on: 10 % …" reads "turned checkout on in staging: 10 % …".
            let where_ = place(part.environments, environments: environments)
            if let colon = part.text.firstIndex(of: ":") {
                return String(part.text[..<colon]) + " " + where_ + String(part.text[colon...])
            }
            return part.text + " " + where_
        }
        if !definition.isEmpty {
            sentences.append("changed the definition of \(key) (\(definition.sorted().joined(separator: ", ")))")
        }
        return sentences.isEmpty ? "rewrote \(key) unchanged" : sentences.joined(separator: "; ")
    }

    /// The names of the definition fields that differ (`variants`, `owner`, `type`, …).
    static func definitionFields(_ old: FlagRecord, _ new: FlagRecord) -> Set<String> {
        var fields: Set<String> = []
        if old.type != new.type { fields.insert("type") }
        if old.variants != new.variants { fields.insert("variants") }
        if old.defaultVariant != new.defaultVariant { fields.insert("code default") }
        let before = old.metadata
        let after = new.metadata
        if before.displayName != after.displayName { fields.insert("display name") }
        if before.description != after.description { fields.insert("description") }
        if before.owner != after.owner { fields.insert("owner") }
        if before.phase != after.phase { fields.insert("phase") }
        if before.removalTarget != after.removalTarget { fields.insert("removal target") }
        if before.requires != after.requires { fields.insert("requires") }
        if before.conflicts != after.conflicts { fields.insert("conflicts") }
        if before.sensitive != after.sensitive { fields.insert("sensitive") }
        if before.custom != after.custom { fields.insert("metadata") }
        return fields.isEmpty ? ["definition"] : fields
    }
}
