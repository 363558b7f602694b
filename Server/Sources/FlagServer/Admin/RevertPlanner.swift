import FlagEvaluation
import FlagServerModel

/// Turns "revert flag X in environment E to revision N" into ordinary changes: the flag's
/// definition and settings as the audit recorded them at N, written as a new revision (pass
/// ``ChangeSet/Revert`` to the write so that the audit records it as a revert to N).
enum RevertPlanner {
    /// - Parameter history: The flag's audit entries in the environment, newest first.
    /// - Throws: ``AdminError/conflict(_:)`` when the flag did not exist at N, or when it is
    ///   already as it was at N (nothing to revert: a write would change nothing).
    static func changes(
        reverting key: String, in environment: String, to revision: Int, history: [AuditEntry], state: ServerState
    ) throws(AdminError) -> [StateChange] {
        guard let current = state.environments[environment] else {
            throw .notFound("environment \"\(environment)\" does not exist")
        }
        guard revision >= 1, revision <= current.revision else {
            throw .badRequest("revision: \(revision) is not a revision of environment \"\(environment)\" (1–\(current.revision))")
        }
        let entry = history.first { $0.subject == .flag && $0.key == key && $0.revision <= revision }
        guard let view = entry?.after, let flagJSON = view["flag"], let settingsJSON = view["settings"] else {
            throw .conflict(
                "flag \"\(key)\" did not exist in environment \"\(environment)\" at revision \(revision); delete it instead")
        }
        var flag: FlagRecord
        let settings: FlagSettings
        do {
            flag = try flagJSON.decoded(as: FlagRecord.self)
            settings = try settingsJSON.decoded(as: FlagSettings.self)
        } catch {
            throw .internalFailure("the audit entry of \"\(key)\" at revision \(entry?.revision ?? 0) is unreadable: \(error)")
        }
        // The code default follows the app's code, not the environment's history: keep the one
        // recorded now while it is one of the reverted variants.
        if let codeDefault = state.flags[key]?.defaultVariant, flag.variants[codeDefault] != nil {
            flag.defaultVariant = codeDefault
        }
        let initial = FlagSettings(enabled: false, defaultVariant: settings.defaultVariant)
        let changes: [StateChange] = [.putFlag(flag, initialSettings: initial), .putSettings(environment: environment, flag: key, settings)]
        let unchanged: Bool
        do { unchanged = try state.applying(changes).audit.isEmpty } catch { throw AdminError(store: error) }
        guard !unchanged else {
            throw .conflict(
                "nothing to revert: flag \"\(key)\" in environment \"\(environment)\" is already as it was at revision \(revision)")
        }
        return changes
    }
}
