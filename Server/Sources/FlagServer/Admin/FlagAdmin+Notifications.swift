import FlagEvaluation
import FlagServerModel
import Foundation

extension FlagAdmin {
    /// Most keys a `flag.changed` notification lists per subject (an import may touch thousands);
    /// past it, `truncated` is true and the counts stay exact.
    static let notifiedKeyLimit = 100

    /// Announces a committed write: one ``ServerNotification/Kind/flagChanged`` per environment it
    /// changed, naming the flags, segments and environments changed (keys only: never a value,
    /// so never a sensitive flag's).
    nonisolated func announce(_ audit: [AuditDraft], revisions: [String: Int], actor: String, reason: String?, at time: Date) {
        let byEnvironment = Dictionary(grouping: audit, by: \.environment)
        for (environment, revision) in revisions.sorted(by: { $0.key < $1.key }) {
            let drafts = byEnvironment[environment] ?? []
            func keys(_ subject: AuditEntry.Subject) -> [String] {
                Array(Set(drafts.filter { $0.subject == subject }.map(\.key))).sorted()
            }
            let flags = keys(.flag)
            let segments = keys(.segment)
            var details: [String: JSONValue] = [
                "flags": .array(flags.prefix(Self.notifiedKeyLimit).map(JSONValue.string)),
                "segments": .array(segments.prefix(Self.notifiedKeyLimit).map(JSONValue.string)),
                "flagCount": .int(flags.count), "segmentCount": .int(segments.count),
                "truncated": .bool(flags.count > Self.notifiedKeyLimit || segments.count > Self.notifiedKeyLimit),
            ]
            if !keys(.environment).isEmpty { details["environmentChanged"] = .bool(true) }
            if let reason { details["reason"] = .string(String(reason.prefix(500))) }
            let what = flags.count == 1 && segments.isEmpty
                ? flags[0] : "\(flags.count) flag\(flags.count == 1 ? "" : "s"), \(segments.count) segment\(segments.count == 1 ? "" : "s")"
            notifications.notify(ServerNotification(
                kind: .flagChanged, time: time, actor: actor, environment: environment, flag: flags.count == 1 ? flags[0] : nil,
                revision: revision, summary: "\(environment) revision \(revision): \(what) changed by \(actor)", details: details))
        }
    }
}
