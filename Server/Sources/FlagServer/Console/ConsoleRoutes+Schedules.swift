import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Scheduled changes in the console (Server/Docs/ScheduledChanges.md): an environment's calendar
/// (every change, soonest first) with the form that schedules a change, the flag page's list for
/// its environment, and the cancel form of a pending change (editors, CSRF-protected). Scheduling
/// and cancelling call ``Schedules`` as the admin API does (the same checks and refusals).
extension ConsoleRoutes {
    static let scheduleNotices = [
        "created": "Scheduled: the change runs once at its time, while its flag is still as it is now.",
        "cancelled": "Cancelled: the change is kept as cancelled and will not run.",
    ]

    func registerSchedules(on router: Router<BasicRequestContext>) {
        router.get("/console/environments/:environment/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in
                let query = Self.query(of: request)
                return try await schedulesPage(
                    visitor, environment: environment, notice: query["done"].flatMap { Self.scheduleNotices[$0] },
                    form: ConsoleForm(fields: ["flag": query["flag"] ?? ""]))
            }
        }
        router.post("/console/environments/:environment/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in try await createSchedule(visitor, form, environment: environment) }
        }
        router.post("/console/environments/:environment/schedules/:id/cancel") { request, context in
            let environment = try context.parameters.require("environment")
            let id = try context.parameters.require("id")
            return try await change(request) { visitor, form in
                try await cancelSchedule(visitor, form, environment: environment, id: id)
            }
        }
    }

    func consoleSchedules() throws -> Schedules {
        guard let store = admin.store.capabilities.schedules else { throw Self.notFound("scheduled changes (this store keeps none)") }
        return Schedules(admin: admin, store: store, now: now)
    }

    func schedulesPage(
        _ visitor: Visitor, environment: String, notice: String? = nil, form: ConsoleForm = ConsoleForm(fields: [:]),
        problems: [String] = [], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let schedules = try consoleSchedules()
        let found: [ScheduledChange]
        do { found = try await schedules.list(environment: environment, limit: Schedules.maximumListLimit) } catch { throw APIError(error) }
        var context = layout(visitor, title: "Scheduled changes in \(environment)", section: "environments")
        context["environment"] = environment
        context["notice"] = notice
        context["action"] = "/console/environments/\(Self.escaped(environment))/schedules"
        context["flagKeys"] = await admin.state.environments[environment]?.settings.keys.sorted() ?? []
        let kind = form["change"] ?? "on"
        context["form"] = [
            "flag": form["flag"] ?? "", "variant": form["variant"] ?? "", "patch": form["patch"] ?? "", "runAt": form["runAt"] ?? "",
            "reason": form["reason"] ?? "",
            "changes": Self.scheduleChangeKinds.map { ["value": $0.0, "label": $0.1, "selected": $0.0 == kind] as [String: Any] },
        ] as [String: Any]
        context["problems"] = problems
        context["hasProblems"] = !problems.isEmpty
        context["empty"] = found.isEmpty
        context["schedules"] = scheduleRows(found, visitor: visitor, returnTo: "list")
        return renderer.page("schedules", context, status: status)
    }

    /// The flag page's scheduled changes of `flag` in `environment` (`nil` without a store that keeps them).
    func flagSchedulesContext(_ visitor: Visitor, flag: String, environment: String) async -> [String: Any]? {
        guard let schedules = try? consoleSchedules(),
            let found = try? await schedules.list(environment: environment, flag: flag, limit: 50)
        else { return nil }
        return [
            "environment": environment, "empty": found.isEmpty,
            "calendar": "/console/environments/\(Self.escaped(environment))/schedules",
            "scheduleLink": "/console/environments/\(Self.escaped(environment))/schedules?flag=\(Self.escaped(flag))#schedule-form",
            "schedules": scheduleRows(found, visitor: visitor, returnTo: "flag"),
        ]
    }

    func scheduleRows(_ schedules: [ScheduledChange], visitor: Visitor, returnTo: String) -> [[String: Any]] {
        schedules.map { schedule -> [String: Any] in
            [
                "id": schedule.id, "flag": schedule.flag, "flagLink": "/console/flags/\(Self.escaped(schedule.flag))?environment=\(Self.escaped(schedule.environment))",
                "runAt": Self.shortTime(schedule.runAt), "status": schedule.status.rawValue, "change": Self.describe(schedule.change),
                "reason": schedule.reason, "actor": schedule.actor, "outcome": schedule.outcome ?? "",
                "revision": schedule.revision.map { "revision \($0)" } ?? "",
                "cancellable": schedule.status == .pending && visitor.canEdit,
                "cancel": "/console/environments/\(Self.escaped(schedule.environment))/schedules/\(Self.escaped(schedule.id))/cancel",
                "returnTo": returnTo,
            ]
        }
    }

    /// "settings patch", "settings", "definition".
    static func describe(_ change: ScheduledChange.Change) -> String {
        if change.patch != nil { return "settings patch" }
        if change.settings != nil { return "settings" }
        return "definition"
    }

    /// The changes the console's form schedules: value and label.
    static let scheduleChangeKinds = [
        ("on", "Switch the flag on"), ("off", "Switch the flag off"), ("variant", "Serve a variant by default (the variant below)"),
        ("patch", "A settings merge patch (the JSON below)"),
    ]

    /// The change a scheduling form describes, or the problem of the field that does not parse.
    static func scheduledChange(from form: ConsoleForm) -> Result<ScheduledChange.Change, ConsoleFormProblems> {
        switch form["change"] ?? "" {
        case "on": return .success(.init(patch: .object(["enabled": .bool(true)])))
        case "off": return .success(.init(patch: .object(["enabled": .bool(false)])))
        case "variant":
            let variant = (form["variant"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !variant.isEmpty else { return .failure(.init(problems: ["variant: name the variant to serve by default"])) }
            return .success(.init(patch: .object(["defaultVariant": .string(variant)])))
        case "patch":
            guard case .object(let members)? = try? JSONValue(parsing: form["patch"] ?? "") else {
                return .failure(.init(problems: ["patch: expected a JSON object of settings (enabled, defaultVariant, targeting)"]))
            }
            return .success(.init(patch: .object(members)))
        case let other:
            return .failure(.init(problems: ["change: choose on, off, variant or patch, got \"\(other.prefix(64))\""]))
        }
    }

    /// A time typed in the form, in UTC: a browser's `datetime-local` value (`2026-12-07T09:30`,
    /// seconds optional) or an RFC 3339 time with its offset.
    static func scheduleTime(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let date = try? Date(trimmed, strategy: .iso8601) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: trimmed) { return date }
        }
        return nil
    }

    func createSchedule(_ visitor: Visitor, _ form: ConsoleForm, environment: String) async throws -> Response {
        let schedules = try consoleSchedules()
        var problems: [String] = []
        let flag = (form["flag"] ?? "").trimmingCharacters(in: .whitespaces)
        if flag.isEmpty { problems.append("flag: name the flag to change") }
        let change: ScheduledChange.Change?
        switch Self.scheduledChange(from: form) {
        case .success(let made): change = made
        case .failure(let refused):
            change = nil
            problems += refused.problems
        }
        let runAtText = form["runAt"] ?? ""
        let runAt = Self.scheduleTime(runAtText)
        if runAt == nil { problems.append("runAt: expected a date and time in UTC such as 2026-12-07T09:30, got \"\(runAtText.prefix(64))\"") }
        guard let change, let runAt, problems.isEmpty else {
            return try await schedulesPage(visitor, environment: environment, form: form, problems: problems, status: .badRequest)
        }
        let draft = Schedules.Draft(change: change, runAt: runAt, reason: form["reason"] ?? "")
        do {
            _ = try await schedules.create(environment: environment, flag: flag, draft: draft, actor: "user \(visitor.user.name)")
        } catch {
            if case .notFound = error, await admin.state.environments[environment] == nil { throw APIError(error) }
            return try await schedulesPage(visitor, environment: environment, form: form, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        return Self.redirect("/console/environments/\(Self.escaped(environment))/schedules?done=created")
    }

    func cancelSchedule(_ visitor: Visitor, _ form: ConsoleForm, environment: String, id: String) async throws -> Response {
        let schedules = try consoleSchedules()
        let reason = form["reason"].flatMap { $0.isEmpty ? nil : $0 }
        let cancelled: ScheduledChange
        do {
            cancelled = try await schedules.cancel(id: id, environment: environment, reason: reason, actor: "user \(visitor.user.name)")
        } catch {
            return try await schedulesPage(visitor, environment: environment, problems: Self.problemTexts(error), status: APIError(error).status)
        }
        if form["returnTo"] == "flag" {
            return Self.redirect("/console/flags/\(Self.escaped(cancelled.flag))?environment=\(Self.escaped(environment))#schedules-heading")
        }
        return Self.redirect("/console/environments/\(Self.escaped(environment))/schedules?done=cancelled")
    }
}
