import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Archiving and restoring a flag from its page: forms with the reason (and, to archive, a
/// confirmation), written for every environment at once.
extension ConsoleRoutes {
    func registerLifecycle(on router: Router<BasicRequestContext>) {
        router.post("/console/flags/:key/archive") { request, context in
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in try await changeLifecycle(visitor, form, key: key, archive: true) }
        }
        router.post("/console/flags/:key/restore") { request, context in
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in try await changeLifecycle(visitor, form, key: key, archive: false) }
        }
    }

    /// Archives or restores `key` with the form's reason; refused (the flag page again, saying
    /// why) without a reason, without the archive's confirmation, or when the write is refused.
    func changeLifecycle(_ visitor: Visitor, _ form: ConsoleForm, key: String, archive: Bool) async throws -> Response {
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let verb = archive ? "archive" : "restore"
        var problems: [String] = []
        if reason.isEmpty { problems.append("Say why you \(verb) \"\(key)\": the reason is required.") }
        if archive, form["confirm"] != "yes" {
            problems.append("Confirm that \"\(key)\" stops being served in every environment.")
        }
        var status = HTTPResponse.Status.badRequest
        if problems.isEmpty {
            let change: StateChange = archive ? .archiveFlag(key) : .restoreFlag(key)
            guard let error = await write(visitor, reason: reason, { _ in [change] }) else {
                return Self.redirect("/console/flags/\(Self.escaped(key))?done=\(archive ? "archived" : "restored")")
            }
            problems = Self.problemTexts(error)
            status = APIError(error).status
        }
        return try await flagPage(
            visitor, key: key, environment: nil, draft: Draft(lifecycleProblems: problems), status: status)
    }
}
