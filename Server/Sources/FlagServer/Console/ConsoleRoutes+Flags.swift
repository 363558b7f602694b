import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The flags table (search, filters, kill switch), creating a flag, and one flag's page (rule
/// editor with validation, percentage rollout with a preview).
extension ConsoleRoutes {
    static let notices = [
        "switched": "Saved: the flag was switched.", "saved": "Saved.", "created": "The flag was created; it is off everywhere.",
        "reverted": "Reverted: written as a new revision.",
        "archived": "Archived: the flag is no longer served, and read-only until restored.",
        "restored": "Restored: the flag is served again as it was.",
        "killed": "Turned off with the kill switch: recorded and announced as such.",
    ]

    func registerFlagPages(on router: Router<BasicRequestContext>) {
        router.get("/console/flags") { request, _ in
            try await page(request) { visitor in
                await flagsPage(visitor, query: FlagGrid.Query(Self.query(of: request)), notice: Self.query(of: request)["done"])
            }
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
                    notice: Self.query(of: request)["done"].flatMap { Self.notices[$0] },
                    insights: Self.query(of: request)["insights"])
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
        router.post("/console/flags/:key/environments/:environment/kill") { request, context in
            let key = try context.parameters.require("key")
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in
                try await killFlag(visitor, form, key: key, environment: environment)
            }
        }
        registerLivePreview(on: router)
        registerLifecycle(on: router)
        registerDefinitionForm(on: router)
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
        _ visitor: Visitor, query: FlagGrid.Query, notice: String? = nil, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async -> Response {
        let state = await admin.state
        let environments = state.orderedEnvironmentKeys
        let lifecycleEnvironment = Self.lifecycleEnvironment(query, environments: environments)
        let (evidence, evidenceComputing) = gridEvidence(in: lifecycleEnvironment, state: state)
        let grid = FlagGrid(flags: state.flags.values, query: query, evidence: evidence.mapValues(\.state))
        let back = query.queryString
        let changed = await gridCache.lastChanges(of: grid.flags.map(\.key), in: state) { keys in
            await lastChanges(of: keys, in: environments)
        }
        let formatter = ISO8601DateFormatter()
        let rows: [[String: Any]] = grid.flags.map { flag in
            let tags = FlagGrid.tags(of: flag)
            var row = Self.omittingEmpty([
                "key": flag.key, "path": Self.escaped(flag.key), "name": flag.metadata.displayName ?? "",
                "owner": flag.metadata.owner ?? "", "phase": flag.metadata.phase.map(String.init) ?? "",
                "type": flag.type.rawValue, "removalTarget": flag.metadata.removalTarget ?? "",
                "description": flag.metadata.description ?? "",
                "due": !query.due.isEmpty,
                "tags": tags.map { name in ["tag": name, "href": query.link { $0.tag = name; $0.page = 1 }] as [String: Any] },
                "cells": environments.map { environment -> [String: Any] in
                    let settings = state.environments[environment]?.settings[flag.key]
                    let enabled = settings?.enabled ?? false
                    let words = settings.map { ServingWords(flag: flag, settings: $0) }
                    var cell: [String: Any] = [
                        "environment": environment, "environmentPath": Self.escaped(environment), "enabled": enabled,
                        "checked": enabled ? "true" : "false", "state": enabled ? "on" : "off", "kind": words?.kind.rawValue ?? "off",
                        "words": words?.text ?? "off",
                        "action": enabled ? "Turn off" : "Turn on", "next": enabled ? "false" : "true",
                        "id": "switch-\(flag.key)-\(environment)", "back": back,
                    ]
                    if let words, !enabled { cell["then"] = "once on: " + words.plan }
                    return cell
                },
            ], ["name", "description", "owner", "phase", "removalTarget"])
            row["tagged"] = !tags.isEmpty
            row["archived"] = flag.archived
            if let flagEvidence = evidence[flag.key], let text = Self.evidenceBadge(flagEvidence, environment: lifecycleEnvironment) {
                row["evidence"] = ["state": flagEvidence.state.rawValue, "text": text, "reason": flagEvidence.reason] as [String: Any]
            }
            if let last = changed[flag.key] {
                row["changed"] = [
                    "time": formatter.string(from: last.time), "day": Self.shortTime(last.time), "actor": last.actor,
                    "environment": last.environment, "reason": last.reason ?? "",
                ] as [String: Any]
            }
            return row
        }
        let facets = gridCache.facets(of: state)
        let (owners, phases, tags) = (facets.owners, facets.phases, facets.tags)
        var context = layout(visitor, title: "Flags", section: "flags")
        context["environments"] = environments
        context["rows"] = rows
        context["empty"] = rows.isEmpty
        context["q"] = query.search
        context["due"] = query.due
        context["archivedFilter"] = [("", "hidden"), ("only", "only archived"), ("all", "shown with the others")].map { value, label in
            ["value": value, "label": label, "selected": value == query.archived] as [String: Any]
        }
        context["owners"] = owners.map { ["value": $0, "selected": $0 == query.owner] as [String: Any] }
        context["phases"] = phases.map { ["value": String($0), "selected": String($0) == query.phase] as [String: Any] }
        context["types"] = FlagType.allCases.map { ["value": $0.rawValue, "selected": $0.rawValue == query.type] as [String: Any] }
        context["tags"] = tags.map { ["value": $0, "selected": $0 == query.tag] as [String: Any] }
        context["hasTags"] = !tags.isEmpty
        context["hasEvidence"] = self.evidence.store != nil
        context["evidenceComputing"] = evidenceComputing
        context["lifecycles"] = FlagGrid.Query.lifecycles.map { ["value": $0, "selected": $0 == query.lifecycle] as [String: Any] }
        context["lifecycleEnvironments"] = environments.map {
            ["value": $0, "selected": $0 == lifecycleEnvironment] as [String: Any]
        }
        context["filtered"] = query.fields.contains { !["sort", "page", "in"].contains($0.0) }
        let sortKey = (query.descending ? "-" : "") + query.sort.rawValue
        context["sorts"] = [
            ("key", "key, A to Z"), ("-key", "key, Z to A"), ("owner", "owner"), ("phase", "phase"),
            ("removal", "removal target, soonest first"), ("type", "type"),
        ].map { value, label in ["value": value, "label": label, "selected": value == sortKey] as [String: Any] }
        let first = grid.total == 0 ? 0 : (grid.page - 1) * FlagGrid.pageSize + 1
        context["range"] = grid.total == 0 ? "No flags" : "\(first)–\(first + grid.flags.count - 1) of \(grid.total) flags"
        context["page"] = grid.page
        context["pageCount"] = grid.pageCount
        if grid.page > 1 { context["previous"] = query.link { $0.page = grid.page - 1 } }
        if grid.page < grid.pageCount { context["next"] = query.link { $0.page = grid.page + 1 } }
        context["paged"] = grid.pageCount > 1
        context["error"] = error
        context["notice"] = notice.flatMap { Self.notices[$0] }
        return renderer.page("flags", context, status: status)
    }

    /// The environment whose removal evidence the grid shows: the query's, else `production`,
    /// else the last one.
    static func lifecycleEnvironment(_ query: FlagGrid.Query, environments: [String]) -> String {
        if environments.contains(query.lifecycleEnvironment) { return query.lifecycleEnvironment }
        return environments.contains("production") ? "production" : environments.last ?? ""
    }

    /// The removal evidence of the flags of `environment` (over ``FlagEvidence/defaultDays``) as
    /// ``FlagEvidenceCache`` keeps it, without waiting for the event store: empty when the server
    /// keeps no events or nothing is computed yet (the grid then shows no badge and says that the
    /// evidence is being computed, and the lifecycle filters match nothing).
    func gridEvidence(in environment: String, state: ServerState) -> (flags: [String: FlagEvidence], computing: Bool) {
        guard evidence.store != nil, let settings = state.environments[environment]?.settings else { return ([:], false) }
        let flags = settings.keys.filter { state.flags[$0] != nil }
        guard let kept = evidence.keptEvidence(environment: environment, flags: flags, days: FlagEvidence.defaultDays) else {
            return ([:], true)
        }
        return (Dictionary(kept.flags.map { ($0.flag, $0) }, uniquingKeysWith: { first, _ in first }), false)
    }

    /// The grid's badge for a flag's evidence: `settled on on since 3 Nov in production`,
    /// `unused in production since 2 Oct`; `nil` for active and unknown flags.
    static func evidenceBadge(_ evidence: FlagEvidence, environment: String) -> String? {
        switch evidence.state {
        case .settled:
            guard let run = evidence.run else { return nil }
            return "settled on \(run.variant) since \(shortDay(run.since)) in \(environment)"
        case .unused:
            return "unused in \(environment)" + (evidence.lastEvaluated.map { " since \(shortDay($0))" } ?? ", never evaluated")
        case .active, .unknown:
            return nil
        }
    }

    /// `3 Nov` (UTC) of a time in milliseconds since 1970.
    static func shortDay(_ time: Int64) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.day, .month], from: Date(timeIntervalSince1970: TimeInterval(time) / 1000))
        return "\(parts.day ?? 1) \(months[((parts.month ?? 1) - 1) % 12])"
    }

    /// The newest audit entry of each of `keys` across `environments` (one query an environment);
    /// a key without one, or whose environment's read failed, is absent (its column stays empty).
    func lastChanges(of keys: [String], in environments: [String]) async -> [String: AuditEntry] {
        var newest: [String: AuditEntry] = [:]
        for environment in environments {
            guard let entries = try? await admin.store.latestAuditEntries(environment: environment, keys: keys) else { continue }
            newest.merge(entries) { known, entry in (known.time, known.revision) >= (entry.time, entry.revision) ? known : entry }
        }
        return newest
    }

    /// A time as the grid shows it: `2026-11-26 11:02` (UTC).
    static func shortTime(_ time: Date) -> String {
        let text = ISO8601DateFormatter.string(from: time, timeZone: .gmt, formatOptions: [.withFullDate, .withTime, .withColonSeparatorInTime])
        return String(text.replacingOccurrences(of: "T", with: " ").prefix(16)) + " UTC"
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

    /// Switches a flag on or off in one environment, with the reason the grid's dialog asked.
    /// Without a reason (a browser without JavaScript posts the switch alone) it answers with a
    /// page that asks for one; afterwards it returns to the grid as the visitor left it.
    func switchFlag(_ request: Request, _ visitor: Visitor, _ form: ConsoleForm, key: String, environment: String) async throws -> Response {
        let enabled = form["enabled"] == "true"
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let back = FlagGrid.Query(ConsoleForm(parsing: form["back"] ?? ""))
        guard !reason.isEmpty else {
            let state = await admin.state
            guard let flag = state.flags[key], let settings = state.environments[environment]?.settings[key] else {
                return await flagsPage(
                    visitor, query: back, error: "flag \"\(key)\" in environment \"\(environment)\" does not exist", status: .notFound)
            }
            var context = layout(visitor, title: "Switch \(key)", section: "flags")
            if form["reason"] != nil {
                context["error"] = "Say why you turn \"\(key)\" \(enabled ? "on" : "off") in \"\(environment)\": the reason is required."
            }
            let words = ServingWords(flag: flag, settings: settings)
            context["switch"] = [
                "key": flag.key, "path": Self.escaped(flag.key), "environment": environment, "environmentPath": Self.escaped(environment),
                "enabled": enabled, "next": enabled ? "true" : "false", "action": enabled ? "Turn on" : "Turn off",
                "now": words.text, "kind": words.kind.rawValue, "then": enabled ? words.plan : "apps use their code default",
                "back": back.queryString, "cancel": back.link { _ in },
            ] as [String: Any]
            return renderer.page("switch", context, status: form["reason"] != nil ? .badRequest : .ok)
        }
        let error = await write(visitor, reason: reason) { state throws(AdminError) in
            guard var settings = state.environments[environment]?.settings[key] else {
                throw .notFound("flag \"\(key)\" in environment \"\(environment)\" does not exist")
            }
            settings.enabled = enabled
            return [.putSettings(environment: environment, flag: key, settings)]
        }
        if let error { return await flagsPage(visitor, query: back, error: error.description, status: APIError(error).status) }
        let grid = back.link { _ in }
        return Self.redirect(grid + (grid.contains("?") ? "&" : "?") + "done=switched#flag-\(Self.escaped(key))")
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
        let variantsText = form["variants"] ?? Self.exampleVariants[type] ?? ""
        var variants: [String: JSONValue] = [:]
        if case .object(let members)? = try? JSONValue(parsing: variantsText) { variants = members }
        let chosen = form["defaultVariant"] ?? ""
        let automatic = Self.servedWhenOn(type: type, variants: variants)
        let served = variants[chosen] != nil ? chosen : automatic
        var options: [[String: Any]] = [[
            "value": "", "selected": variants[chosen] == nil,
            "label": automatic.map { "Automatic: \"\($0)\" (\(Self.automaticRule(type)))" } ?? "Automatic (\(Self.automaticRule(type)))",
        ]]
        options += variants.keys.sorted().map { name in ["value": name, "label": name, "selected": name == chosen] as [String: Any] }
        return [
            "key": form["key"] ?? "", "displayName": form["displayName"] ?? "", "description": form["description"] ?? "",
            "owner": form["owner"] ?? "", "phase": form["phase"] ?? "", "removalTarget": form["removalTarget"] ?? "",
            "variants": variantsText,
            "examples": examples.serialized(),
            "types": FlagType.allCases.map { ["value": $0.rawValue, "selected": $0 == type] as [String: Any] },
            "defaultVariantOptions": options,
            "servedWhenOn": served.flatMap { name in variants[name].map { Self.servedWhenOnText(name, $0) } }
                ?? "Created off in every environment; once the variants are set, this says what it serves when switched on.",
        ]
    }

    /// The variant a new flag serves when switched on, unless the form names one: for a boolean the
    /// variant whose value is `true` (the first by name if several are), otherwise the first variant by name.
    static func servedWhenOn(type: FlagType, variants: [String: JSONValue]) -> String? {
        let names = variants.keys.sorted()
        if type == .boolean, let on = names.first(where: { variants[$0] == .bool(true) }) { return on }
        return names.first
    }

    /// How ``servedWhenOn(type:variants:)`` picks, as the form's automatic choice says it.
    static func automaticRule(_ type: FlagType) -> String {
        type == .boolean ? "the variant whose value is true" : "the first variant by name"
    }

    /// "Created off in every environment; switched on, it serves "on" (true)."
    static func servedWhenOnText(_ name: String, _ value: JSONValue) -> String {
        "Created off in every environment; switched on, it serves \"\(name)\" (\(value.serialized()))."
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
        let metadata = FlagRecordMetadata(
            displayName: text("displayName"), description: text("description"), owner: text("owner"), phase: Int(phaseText),
            removalTarget: text("removalTarget"))
        let chosen = (form["defaultVariant"] ?? "").trimmingCharacters(in: .whitespaces)
        guard chosen.isEmpty || variants[chosen] != nil else {
            return refuse(["defaultVariant: \"\(chosen)\" is not one of the variants (\(variants.keys.sorted().joined(separator: ", ")))"])
        }
        let flag = FlagRecord(key: key, type: type, variants: variants, metadata: metadata)
        let served = chosen.isEmpty ? Self.servedWhenOn(type: type, variants: variants) : chosen
        let initial = FlagSettings(enabled: false, defaultVariant: served ?? "")
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
