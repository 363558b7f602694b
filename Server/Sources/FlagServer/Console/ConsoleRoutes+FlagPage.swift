import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// One flag: metadata, variants, every environment, and for the chosen environment the rule
/// editor and the percentage rollout.
extension ConsoleRoutes {
    /// What the forms of the chosen environment show after a post that was not saved.
    struct Draft {
        var enabled: Bool?
        var defaultVariant: String?
        var targeting: String?
        var percentages: [String: String] = [:]
        var problems: [String] = []
        var checked = false
        var preview: SettingsPreview.Result?
        var reason: String = ""
        /// Why an archive or restore was refused.
        var lifecycleProblems: [String] = []
        /// The definition form as posted, when it was not saved, and why.
        var definition: ConsoleForm?
        var definitionProblems: [String] = []
    }

    func flagPage(
        _ visitor: Visitor, key: String, environment requested: String?, draft: Draft = Draft(),
        status: HTTPResponse.Status = .ok, notice: String? = nil, insights window: String? = nil
    ) async throws -> Response {
        let state = await admin.state
        guard let flag = state.flags[key] else { throw Self.notFound("flag \"\(key)\"") }
        let environments = state.orderedEnvironmentKeys
        let selected = requested.flatMap { environments.contains($0) ? $0 : nil }
            ?? (environments.contains("production") ? "production" : environments.first ?? "")
        let sensitive = flag.metadata.sensitive
        func shown(_ value: JSONValue) -> String { sensitive ? "<REDACTED>" : value.serialized() }
        var context = layout(visitor, title: flag.metadata.displayName ?? flag.key, section: "flags")
        let metadata = flag.metadata
        context["flag"] = Self.omittingEmpty([
            "key": flag.key, "heading": metadata.displayName ?? flag.key, "showKey": metadata.displayName != nil, "path": Self.escaped(flag.key), "type": flag.type.rawValue,
            "displayName": metadata.displayName ?? "", "description": metadata.description ?? "",
            "owner": metadata.owner ?? "—", "phase": metadata.phase.map(String.init) ?? "—",
            "removalTarget": metadata.removalTarget ?? "—",
            "requires": metadata.requires.isEmpty ? "—" : metadata.requires.joined(separator: ", "),
            "conflicts": metadata.conflicts.isEmpty ? "—" : metadata.conflicts.joined(separator: ", "),
            "sensitive": sensitive,
        ], ["displayName", "description"])
        context["variants"] = flag.variants.keys.sorted().map { ["name": $0, "value": shown(flag.variants[$0]!)] }
        context["environments"] = environments.map { environment -> [String: Any] in
            let settings = state.environments[environment]?.settings[key]
            return Self.omittingEmpty([
                "key": environment, "path": Self.escaped(environment), "current": environment == selected,
                "state": settings?.enabled == true ? "on" : "off", "enabled": settings?.enabled == true,
                "defaultVariant": settings?.defaultVariant ?? "",
                "serving": settings.map { flag.archived ? "not served while archived; once restored, " + Self.serving(flag, $0) : Self.serving(flag, $0) } ?? "",
                "rule": settings?.targeting.map { $0.serialized(prettyPrinted: true) } ?? "",
            ], ["rule"])
        }
        let current = state.environments[selected]?.settings[key] ?? FlagSettings(enabled: false, defaultVariant: "")
        let defaultVariant = draft.defaultVariant ?? current.defaultVariant
        let rolloutNow = SettingsPreview.percentages(of: current.targeting)
        context["edit"] = [
            "environment": selected, "environmentPath": Self.escaped(selected),
            "enabled": draft.enabled ?? current.enabled,
            // The kill switch is offered where the flag is on now.
            "killable": current.enabled,
            "variantOptions": flag.variants.keys.sorted().map { ["name": $0, "selected": $0 == defaultVariant] as [String: Any] },
            "targeting": draft.targeting ?? current.targeting.map { $0.serialized(prettyPrinted: true) } ?? "",
            "rollout": flag.variants.keys.sorted().map { variant -> [String: Any] in
                let percent = draft.percentages[variant] ?? rolloutNow.map { String($0[variant] ?? 0) } ?? ""
                return ["variant": variant, "percent": percent, "id": "percent-\(variant)"]
            },
            "problems": draft.problems,
            "hasProblems": !draft.problems.isEmpty,
            "checkedOK": draft.checked && draft.problems.isEmpty,
            "reason": draft.reason,
            "validateURL": "/console/api/environments/\(Self.escaped(selected))/flags/\(Self.escaped(key))/validate",
        ] as [String: Any]
        // What the rule builder and its live preview need (rule-builder.js).
        var edit = context["edit"] as? [String: Any] ?? [:]
        edit["previewURL"] = "/console/api/environments/\(Self.escaped(selected))/flags/\(Self.escaped(key))/preview"
        edit["builderVariants"] = JSONValue.array(flag.variants.keys.sorted().map { .string($0) }).serialized()
        edit["builderSegments"] = Self.builderSegments(state.environments[selected], except: nil)
        context["edit"] = edit
        if let preview = draft.preview, preview.problems.isEmpty {
            let total = max(1, preview.assignments.count)
            context["preview"] = [
                "total": preview.assignments.count,
                "off": !preview.enabled, "environment": selected,
                "counts": preview.counts.sorted { $0.key < $1.key }.map { variant, count in
                    ["variant": variant, "count": count, "percent": String(format: "%.1f", Double(count) * 100 / Double(total))]
                        as [String: Any]
                },
                "sample": preview.assignments.prefix(12).map { assignment in
                    [
                        "targetingKey": assignment.targetingKey, "variant": assignment.variant ?? "(caller's default)",
                        "value": assignment.value.map(shown) ?? "",
                    ]
                },
            ] as [String: Any]
        }
        // An archived flag is read-only: its lifecycle box offers the restore instead of the forms.
        if flag.archived { context["edit"] = nil }
        context["lifecycle"] = [
            "archived": flag.archived, "path": Self.escaped(flag.key), "key": flag.key,
            // A refused edit of an archived flag says why here: its forms are not shown.
            "problems": draft.lifecycleProblems + (flag.archived ? draft.problems : []),
            "hasProblems": !draft.lifecycleProblems.isEmpty || (flag.archived && !draft.problems.isEmpty),
        ] as [String: Any]
        if !flag.archived { context["definition"] = definitionContext(flag, draft: draft) }
        context["notice"] = notice
        if !selected.isEmpty {
            context["insights"] = await insightsContext(flag: flag, environment: selected, window: window, state: state)
        }
        if !selected.isEmpty { context["schedules"] = await flagSchedulesContext(visitor, flag: key, environment: selected) }
        if !selected.isEmpty { context["rollouts"] = await flagRolloutsContext(visitor, flag: key, environment: selected) }
        return renderer.page("flag", context, status: status)
    }

    /// The settings a settings form describes, or the problem with its fields.
    func settings(from form: ConsoleForm, key: String, environment: String, in state: ServerState) -> Result<FlagSettings, ValidationError> {
        let text = (form["targeting"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var targeting: JSONValue?
        if !text.isEmpty {
            do {
                targeting = try JSONValue(parsing: text)
            } catch {
                return .failure(ValidationError(environment: environment, key: key, field: "targeting", problem: "not JSON: \(error)"))
            }
        }
        let defaultVariant = form["defaultVariant"] ?? state.environments[environment]?.settings[key]?.defaultVariant ?? ""
        return .success(FlagSettings(enabled: form["enabled"] == "on" || form["enabled"] == "true", defaultVariant: defaultVariant, targeting: targeting))
    }

    func saveSettings(_ visitor: Visitor, _ form: ConsoleForm, key: String, environment: String) async throws -> Response {
        let state = await admin.state
        var draft = Draft(
            enabled: form["enabled"] == "on", defaultVariant: form["defaultVariant"], targeting: form["targeting"] ?? "",
            reason: form["reason"] ?? "")
        let settings: FlagSettings
        switch self.settings(from: form, key: key, environment: environment, in: state) {
        case .failure(let problem):
            draft.problems = [problem.description]
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: .unprocessableContent)
        case .success(let value): settings = value
        }
        if form["action"] == "check" {
            do {
                draft.problems = try SettingsPreview.problems(of: settings, flag: key, environment: environment, in: state).map(\.description)
            } catch {
                draft.problems = Self.problemTexts(error)
            }
            draft.checked = true
            if draft.problems.isEmpty {
                // Without scripts the check is where the rule's "who gets what" shows.
                draft.preview = try? SettingsPreview.preview(
                    settings, flag: key, environment: environment, in: state,
                    targetingKeys: SettingsPreview.sampleKeys(count: SettingsPreview.maximumTargetingKeys),
                    bucketing: admin.publisher.bucketing, now: now())
            }
            return try await flagPage(
                visitor, key: key, environment: environment, draft: draft,
                status: draft.problems.isEmpty ? .ok : .unprocessableContent,
                notice: draft.problems.isEmpty ? "The rule is valid. It is not saved yet." : nil)
        }
        if form["action"] == "propose" {
            // Where an approval rule covers the change: a change request instead of a write.
            let approvals = try consoleApprovals()
            do {
                let opened = try await approvals.open(
                    environment: environment, proposal: .init(flag: key, settings: settings), reason: form["reason"] ?? "", applyAt: nil,
                    by: ApprovalIdentity(kind: .user, name: visitor.user.name))
                return Self.redirect("/console/environments/\(Self.escaped(environment))/change-requests/\(Self.escaped(opened.id))?done=opened")
            } catch {
                draft.problems = Self.problemTexts(error)
                return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: APIError(error).status)
            }
        }
        if let error = await write(visitor, reason: form["reason"], { _ in [.putSettings(environment: environment, flag: key, settings)] }) {
            draft.problems = Self.problemTexts(error)
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: APIError(error).status)
        }
        return Self.redirect("/console/flags/\(Self.escaped(key))?environment=\(Self.escaped(environment))&done=saved")
    }

    /// The break-glass kill switch: turns the flag off at once, whatever the approval rule; the
    /// reason is required (``Approvals/kill(flag:environment:reason:actor:)``).
    func killFlag(_ visitor: Visitor, _ form: ConsoleForm, key: String, environment: String) async throws -> Response {
        guard let store = admin.store.capabilities.approvals else { throw Self.notFound("the kill switch (this store keeps no approvals)") }
        let approvals = Approvals(admin: admin, store: store, now: now)
        do {
            _ = try await approvals.kill(flag: key, environment: environment, reason: form["reason"] ?? "", actor: visitor.user.name)
        } catch {
            var draft = Draft(reason: form["reason"] ?? "")
            draft.problems = Self.problemTexts(error)
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: APIError(error).status)
        }
        return Self.redirect("/console/flags/\(Self.escaped(key))?environment=\(Self.escaped(environment))&done=killed")
    }

    func saveRollout(_ visitor: Visitor, _ form: ConsoleForm, key: String, environment: String) async throws -> Response {
        let state = await admin.state
        guard let flag = state.flags[key] else { throw Self.notFound("flag \"\(key)\"") }
        var draft = Draft(reason: form["reason"] ?? "")
        var percentages: [String: Int] = [:]
        var problems: [String] = []
        for variant in flag.variants.keys.sorted() {
            let text = (form["percent.\(variant)"] ?? "").trimmingCharacters(in: .whitespaces)
            draft.percentages[variant] = text
            if text.isEmpty { continue }
            if let value = Int(text) { percentages[variant] = value } else { problems.append("\"\(key)\": rollout.\(variant): \"\(text)\" is not a whole number") }
        }
        guard problems.isEmpty else {
            draft.problems = problems
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: .unprocessableContent)
        }
        var settings = state.environments[environment]?.settings[key] ?? FlagSettings(enabled: false, defaultVariant: "")
        do {
            settings.targeting = try SettingsPreview.rollout(percentages, flag: flag)
            if form["action"] == "preview" {
                let preview = try SettingsPreview.preview(
                    settings, flag: key, environment: environment, in: state,
                    targetingKeys: SettingsPreview.sampleKeys(count: SettingsPreview.maximumTargetingKeys),
                    bucketing: admin.publisher.bucketing, now: now())
                draft.preview = preview
                draft.problems = preview.problems.map(\.description)
            }
        } catch {
            draft.problems = Self.problemTexts(error)
        }
        if !draft.problems.isEmpty {
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: .unprocessableContent)
        }
        if form["action"] == "preview" {
            return try await flagPage(visitor, key: key, environment: environment, draft: draft)
        }
        let reason = (form["reason"] ?? "").isEmpty ? Self.plan(settings) : form["reason"]
        let rolledOut = settings
        if let error = await write(visitor, reason: reason, { _ in [.putSettings(environment: environment, flag: key, rolledOut)] }) {
            draft.problems = Self.problemTexts(error)
            return try await flagPage(visitor, key: key, environment: environment, draft: draft, status: APIError(error).status)
        }
        return Self.redirect("/console/flags/\(Self.escaped(key))?environment=\(Self.escaped(environment))&done=saved")
    }
}
