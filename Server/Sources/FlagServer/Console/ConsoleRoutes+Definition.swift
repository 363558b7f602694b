import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Editing an existing flag's definition from its page: the variants as typed rows (the same
/// editor as the new-flag form's, over the JSON field that is posted) and the registry metadata.
/// The type, the code default, `requires`, `conflicts`, the sensitive mark and the flagd metadata
/// are kept as they are.
extension ConsoleRoutes {
    func registerDefinitionForm(on router: Router<BasicRequestContext>) {
        router.post("/console/flags/:key/definition") { request, context in
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in try await saveDefinition(visitor, form, key: key) }
        }
    }

    /// What the definition form shows: the flag as stored, or the refused post with its problems.
    func definitionContext(_ flag: FlagRecord, draft: Draft) -> [String: Any] {
        let metadata = flag.metadata
        let posted = draft.definition
        func value(_ name: String, _ stored: String?) -> String { posted?[name] ?? stored ?? "" }
        var context: [String: Any] = [
            "type": flag.type.rawValue,
            "displayName": value("displayName", metadata.displayName),
            "description": value("description", metadata.description),
            "owner": value("owner", metadata.owner),
            "phase": value("phase", metadata.phase.map(String.init)),
            "removalTarget": value("removalTarget", metadata.removalTarget),
            "reason": posted?["reason"] ?? "",
            "problems": draft.definitionProblems,
            "hasProblems": !draft.definitionProblems.isEmpty,
            // A sensitive flag's values are not shown in the console, so they are not edited here.
            "showVariants": !metadata.sensitive,
        ]
        if !metadata.sensitive {
            context["variantsJSON"] = posted?["variants"] ?? JSONValue.object(flag.variants).serialized()
        }
        return context
    }

    func saveDefinition(_ visitor: Visitor, _ form: ConsoleForm, key: String) async throws -> Response {
        func refuse(_ problems: [String], _ status: HTTPResponse.Status) async throws -> Response {
            try await flagPage(
                visitor, key: key, environment: nil, draft: Draft(definition: form, definitionProblems: problems), status: status)
        }
        guard let current = await admin.state.flags[key] else { throw Self.notFound("flag \"\(key)\"") }
        var flag = current
        if let text = form["variants"] {
            guard !current.metadata.sensitive else {
                return try await refuse(["variants: a sensitive flag's values are changed through the admin API"], .badRequest)
            }
            do {
                guard case .object(let members) = try JSONValue(parsing: text) else {
                    return try await refuse(["variants: must be a JSON object of variant names and values"], .unprocessableContent)
                }
                flag.variants = members
            } catch {
                return try await refuse(["variants: not JSON: \(error)"], .unprocessableContent)
            }
        }
        let phaseText = (form["phase"] ?? "").trimmingCharacters(in: .whitespaces)
        guard phaseText.isEmpty || Int(phaseText) != nil else {
            return try await refuse(["phase: \"\(phaseText)\" is not a whole number"], .unprocessableContent)
        }
        func text(_ name: String) -> String? {
            let value = (form[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        flag.metadata.displayName = text("displayName")
        flag.metadata.description = text("description")
        flag.metadata.owner = text("owner")
        flag.metadata.phase = Int(phaseText)
        flag.metadata.removalTarget = text("removalTarget")
        // The code default follows the app's code: kept while it is still a variant.
        if let codeDefault = flag.defaultVariant, flag.variants[codeDefault] == nil { flag.defaultVariant = nil }
        let edited = flag
        let initial = FlagSettings(enabled: false, defaultVariant: edited.variants.keys.sorted().first ?? "")
        if let error = await write(visitor, reason: text("reason") ?? "edit the definition of \"\(key)\"", { _ in
            [.putFlag(edited, initialSettings: initial)]
        }) {
            return try await refuse(Self.problemTexts(error), APIError(error).status)
        }
        return Self.redirect("/console/flags/\(Self.escaped(key))?done=saved")
    }
}
