import FlagEvaluation
import Foundation
import HTTPTypes
import Hummingbird

/// Scheduled changes in the console (Server/Docs/ScheduledChanges.md): an environment's calendar
/// (every change, soonest first), the flag page's list for its environment, and the cancel form
/// of a pending change (editors, CSRF-protected). Scheduling itself goes through the admin API.
extension ConsoleRoutes {
    func registerSchedules(on router: Router<BasicRequestContext>) {
        router.get("/console/environments/:environment/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            return try await page(request) { visitor in
                try await schedulesPage(visitor, environment: environment, cancelled: Self.query(of: request)["done"] == "cancelled")
            }
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
        guard let store = admin.store as? any ScheduleStore else { throw Self.notFound("scheduled changes (this store keeps none)") }
        return Schedules(admin: admin, store: store, now: now)
    }

    func schedulesPage(
        _ visitor: Visitor, environment: String, cancelled: Bool = false, problems: [String] = [], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let schedules = try consoleSchedules()
        let found: [ScheduledChange]
        do { found = try await schedules.list(environment: environment, limit: Schedules.maximumListLimit) } catch { throw APIError(error) }
        var context = layout(visitor, title: "Scheduled changes in \(environment)", section: "flags")
        context["environment"] = environment
        context["notice"] = cancelled ? "Cancelled: the change is kept as cancelled and will not run." : nil
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
