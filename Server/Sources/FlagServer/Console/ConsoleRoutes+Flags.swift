import FlagEvaluation
import Foundation
import HTTPTypes
import Hummingbird

/// The flags table (search, filters, kill switch), creating a flag, and one flag's page (rule
/// editor with validation, percentage rollout with a preview).
extension ConsoleRoutes {
    static let notices = [
        "switched": "Saved: the flag was switched.", "saved": "Saved.", "created": "The flag was created; it is off everywhere.",
        "reverted": "Reverted: written as a new revision.",
    ]

    func registerFlagPages(on router: Router<BasicRequestContext>) {
        router.get("/console/flags") { request, _ in
            try await page(request) { visitor in await flagsPage(request, visitor) }
        }
        router.get("/console/new-flag") { request, _ in
            try await page(request) { visitor in
                renderer.page("new-flag", layout(visitor, title: "New flag", section: "flags").merging(newFlagContext(ConsoleForm(fields: [:]))) { $1 })
            }
        }
        router.post("/console/new-flag") { request, _ in
            try await change(request) { visitor, form in try await createFlag(visitor, form) }
        }
        router.post("/console/flags/:key/environments/:environment/switch") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in
                try await switchFlag(request, visitor, form, key: key, environment: environment)
            }
        }
        router.get("/console/flags/:key") { request, context in
            let key = try context.parameters.require("key")
            return try await page(request) { visitor in
                try await flagPage(
                    visitor, key: key, environment: Self.query(of: request)["environment"],
                    notice: Self.query(of: request)["done"].flatMap { Self.notices[$0] })
            }
        }
        router.post("/console/flags/:key/environments/:environment/settings") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in
                try await saveSettings(visitor, form, key: key, environment: environment)
            }
        }
        router.post("/console/flags/:key/environments/:environment/rollout") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in
                try await saveRollout(visitor, form, key: key, environment: environment)
            }
        }
        registerLivePreview(on: router)
        router.post("/console/api/environments/:environment/flags/:key/validate") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request, needs: .viewer) { _, form in
                let state = await admin.state
                let problems: [ValidationError]
                switch settings(from: form, key: key, environment: environment, in: state) {
                case .failure(let problem): problems = [problem]
                case .success(let settings):
                    do {
                        problems = try SettingsPreview.problems(of: settings, flag: key, environment: environment, in: state)
                    } catch let error as AdminError {
                        throw APIError(error)
                    }
                }
                return JSONBody.response(["problems": problems])
            }
        }
    }

    /// The preview the flag page's script shows as the settings form changes: what the form's
    /// settings would serve to the sample users, counted by variant (nothing is saved).
    func registerLivePreview(on router: Router<BasicRequestContext>) {
        router.post("/console/api/environments/:environment/flags/:key/preview") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request, needs: .viewer) { _, form in
                let state = await admin.state
                switch settings(from: form, key: key, environment: environment, in: state) {
                case .failure(let problem):
                    return JSONBody.response(LivePreview(problems: [problem], enabled: false, total: 0, counts: [:]))
                case .success(let settings):
                    do {
                        let keys = SettingsPreview.sampleKeys(count: SettingsPreview.maximumTargetingKeys)
                        let result = try SettingsPreview.preview(
                            settings, flag: key, environment: environment, in: state, targetingKeys: keys,
                            bucketing: admin.publisher.bucketing, now: now())
                        return JSONBody.response(LivePreview(
                            problems: result.problems, enabled: result.enabled, total: result.problems.isEmpty ? keys.count : 0,
                            counts: result.counts))
                    } catch let error as AdminError {
                        throw APIError(error)
                    }
                }
            }
        }
    }

    /// The live preview's answer: the counts by variant over `total` sample users, or the problems.
    struct LivePreview: Encodable {
        var problems: [ValidationError]
        var enabled: Bool
        var total: Int
        var counts: [String: Int]
    }

    // MARK: - The flags table

    func flagsPage(
        _ request: Request, _ visitor: Visitor, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async -> Response {
        let state = await admin.state
        let query = Self.query(of: request)
        func parameter(_ name: String) -> String {
            (query[name] ?? "").trimmingCharacters(in: .whitespaces)
        }
        let search = parameter("q").lowercased()
        let owner = parameter("owner")
        let phase = parameter("phase")
        let type = parameter("type")
        let due = parameter("due")
        let environments = state.orderedEnvironmentKeys
        let flags = state.flags.values.sorted { $0.key < $1.key }.filter { flag in
            let metadata = flag.metadata
            if !search.isEmpty {
                let fields = [flag.key, metadata.displayName, metadata.owner, metadata.description].compactMap { $0?.lowercased() }
                guard fields.contains(where: { $0.contains(search) }) else { return false }
            }
            if !owner.isEmpty, metadata.owner != owner { return false }
            if !phase.isEmpty, metadata.phase.map(String.init) != phase { return false }
            if !type.isEmpty, flag.type.rawValue != type { return false }
            if !due.isEmpty, !AppVersion.isDue(removalTarget: metadata.removalTarget, at: due) { return false }
            return true
        }
        let rows: [[String: Any]] = flags.map { flag in
            Self.omittingEmpty([
                "key": flag.key, "path": Self.escaped(flag.key), "name": flag.metadata.displayName ?? "",
                "owner": flag.metadata.owner ?? "", "phase": flag.metadata.phase.map(String.init) ?? "",
                "type": flag.type.rawValue, "removalTarget": flag.metadata.removalTarget ?? "",
                "description": flag.metadata.description ?? "",
                "due": !due.isEmpty,
                "cells": environments.map { environment -> [String: Any] in
                    let settings = state.environments[environment]?.settings[flag.key]
                    let enabled = settings?.enabled ?? false
                    return [
                        "environment": environment, "environmentPath": Self.escaped(environment), "enabled": enabled,
                        "state": enabled ? "on" : "off", "serving": settings.map { Self.serving(flag, $0) } ?? "",
                        "action": enabled ? "Kill" : "Turn on", "next": enabled ? "false" : "true",
                        "id": "switch-\(flag.key)-\(environment)",
                    ]
                },
            ], ["name", "description"])
        }
        let owners = Set(state.flags.values.compactMap(\.metadata.owner)).sorted()
        let phases = Set(state.flags.values.compactMap(\.metadata.phase)).sorted()
        var context = layout(visitor, title: "Flags", section: "flags")
        context["environments"] = environments
        context["rows"] = rows
        context["empty"] = rows.isEmpty
        context["q"] = parameter("q")
        context["due"] = due
        context["owners"] = owners.map { ["value": $0, "selected": $0 == owner] as [String: Any] }
        context["phases"] = phases.map { ["value": String($0), "selected": String($0) == phase] as [String: Any] }
        context["types"] = FlagType.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == type] as [String: Any] }
        context["error"] = error
        context["notice"] = query["done"].flatMap { Self.notices[$0] }
        return renderer.page("flags", context, status: status)
    }

    /// What a flag serves in an environment, in words. A flag that is off serves nothing of its
    /// own (apps use their code default), so its text says so before what it will serve once on.
    static func serving(_ flag: FlagRecord, _ settings: FlagSettings) -> String {
        guard settings.enabled else { return "off: apps use their code default; once on, \(plan(settings))" }
        return plan(settings)
    }

    /// What the settings serve while the flag is on, in words.
    static func plan(_ settings: FlagSettings) -> String {
        // `nil`: flagd's "no default variant", where the caller's code default is served.
        let fallback = settings.defaultVariant ?? "the code default"
        guard let targeting = settings.targeting else { return "serves \(fallback)" }
        if let percentages = SettingsPreview.percentages(of: targeting) {
            return "rollout " + percentages.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)%" }.joined(separator: " · ")
        }
        return "rule, else \(fallback)"
    }

    func switchFlag(_ request: Request, _ visitor: Visitor, _ form: ConsoleForm, key: String, environment: String) async throws -> Response {
        let enabled = form["enabled"] == "true"
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty else {
            return await flagsPage(
                request, visitor, error: "Say why you turn \"\(key)\" \(enabled ? "on" : "off") in \"\(environment)\": the reason is required.",
                status: .badRequest)
        }
        let error = await write(visitor, reason: reason) { state throws(AdminError) in
            guard var settings = state.environments[environment]?.settings[key] else {
                throw .notFound("flag \"\(key)\" in environment \"\(environment)\" does not exist")
            }
            settings.enabled = enabled
            return [.putSettings(environment: environment, flag: key, settings)]
        }
        if let error { return await flagsPage(request, visitor, error: error.description, status: APIError(error).status) }
        return Self.redirect("/console/flags?done=switched")
    }

    /// Writes through ``FlagAdmin`` as the visitor; the refusal, if any.
    func write(
        _ visitor: Visitor, reason: String?, revert: ChangeSet.Revert? = nil,
        _ makeChanges: @Sendable (ServerState) throws(AdminError) -> [StateChange]
    ) async -> AdminError? {
        if let reason, reason.utf8.count > 1000 { return .badRequest("reason: longer than 1000 bytes") }
        do {
            try await admin.write(
                actor: visitor.user.name, reason: reason?.isEmpty == true ? nil : reason, revert: revert, makeChanges)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Creating a flag

    /// The variants the new-flag form proposes for each type; the console's script swaps them
    /// when the type changes while the variants are still the previous type's example.
    static let exampleVariants: [FlagType: String] = [
        .boolean: #"{"on": true, "off": false}"#,
        .string: #"{"control": "control", "treatment": "treatment"}"#,
        .integer: #"{"small": 10, "large": 100}"#,
        .float: #"{"low": 0.1, "high": 0.5}"#,
        .object: #"{"default": {"enabled": false}}"#,
    ]

    func newFlagContext(_ form: ConsoleForm) -> [String: Any] {
        let type = FlagType(rawValue: form["type"] ?? "") ?? .boolean
        let examples = JSONValue.object(Self.exampleVariants.reduce(into: [:]) { $0[$1.key.rawValue] = .string($1.value) })
        return [
            "key": form["key"] ?? "", "displayName": form["displayName"] ?? "", "description": form["description"] ?? "",
            "owner": form["owner"] ?? "", "phase": form["phase"] ?? "", "removalTarget": form["removalTarget"] ?? "",
            "variants": form["variants"] ?? Self.exampleVariants[type] ?? "",
            "examples": examples.serialized(),
            "types": FlagType.allCases.map { ["value": $0.rawValue, "selected": $0 == type] as [String: Any] },
        ]
    }

    func createFlag(_ visitor: Visitor, _ form: ConsoleForm) async throws -> Response {
        func refuse(_ problems: [String]) -> Response {
            var context = layout(visitor, title: "New flag", section: "flags").merging(newFlagContext(form)) { $1 }
            context["problems"] = problems
            context["hasProblems"] = true
            return renderer.page("new-flag", context, status: .unprocessableContent)
        }
        let key = (form["key"] ?? "").trimmingCharacters(in: .whitespaces)
        guard let type = FlagType(rawValue: form["type"] ?? "") else { return refuse(["type: choose one of the types"]) }
        let variants: [String: JSONValue]
        do {
            guard case .object(let members) = try JSONValue(parsing: form["variants"] ?? "") else {
                return refuse(["variants: must be a JSON object of variant names and values"])
            }
            variants = members
        } catch {
            return refuse(["variants: not JSON: \(error)"])
        }
        let phaseText = (form["phase"] ?? "").trimmingCharacters(in: .whitespaces)
        guard phaseText.isEmpty || Int(phaseText) != nil else { return refuse(["phase: \"\(phaseText)\" is not a whole number"]) }
        func text(_ name: String) -> String? {
            let value = (form[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        let metadata = FlagMetadata(
            displayName: text("displayName"), description: text("description"), owner: text("owner"), phase: Int(phaseText),
            removalTarget: text("removalTarget"))
        let flag = FlagRecord(key: key, type: type, variants: variants, metadata: metadata)
        let initial = FlagSettings(enabled: false, defaultVariant: variants.keys.sorted().first ?? "")
        let exists = await admin.state.flags[key] != nil
        guard !exists else { return refuse(["key: a flag \"\(key)\" exists already"]) }
        if let error = await write(visitor, reason: text("reason") ?? "create \"\(key)\"", { _ in [.putFlag(flag, initialSettings: initial)] }) {
            return refuse(Self.problemTexts(error))
        }
        return Self.redirect("/console/flags/\(Self.escaped(key))?done=created")
    }

    static func problemTexts(_ error: AdminError) -> [String] {
        if case .invalid(let problems) = error { return problems.map(\.description) }
        return [error.description]
    }
}
