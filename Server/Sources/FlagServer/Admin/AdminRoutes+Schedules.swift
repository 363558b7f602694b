import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The bodies of the scheduled-change routes.
enum ScheduleRequests {
    /// `POST …/flags/{key}/schedules` and `PUT …/schedules/{id}`.
    struct ScheduleBody: DocumentedRequestBody {
        static var schemaName: String { "ScheduleBody" }
        var change: ScheduledChange.Change
        /// RFC 3339.
        var runAt: String
        var reason: String
        var basedOnRevision: Int?
        /// `PUT` only: the version the edit is based on.
        var version: Int?

        func draft() throws -> Schedules.Draft {
            Schedules.Draft(change: change, runAt: try ScheduleRequests.time(runAt, "runAt"), reason: reason, basedOnRevision: basedOnRevision)
        }
    }

    /// An RFC 3339 time of a body or query.
    static func time(_ text: String, _ field: String) throws -> Date {
        guard let date = try? Date(text, strategy: .iso8601) else {
            throw APIError(.badRequest, code: "bad_request", message: "\(field): expected an RFC 3339 time, got \"\(text.prefix(64))\"")
        }
        return date
    }
}

extension AdminRoutes {
    /// Scheduled changes of a flag and an environment's calendar (`Server/Docs/ScheduledChanges.md`).
    func registerScheduleRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/environments/:environment/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let schedules = try scheduleService()
            let query = request.uri.queryParameters
            let from = try query["from"].map { try ScheduleRequests.time(String($0), "from") }
            let to = try query["to"].map { try ScheduleRequests.time(String($0), "to") }
            let limit = try Self.scheduleLimit(query["limit"].map(String.init))
            let found = try await Self.run { () async throws(AdminError) in
                try await schedules.list(environment: environment, from: from, to: to, limit: limit)
            }
            return JSONBody.response(found)
        }
        group.get("/environments/:environment/flags/:key/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let schedules = try scheduleService()
            let limit = try Self.scheduleLimit(request.uri.queryParameters["limit"].map(String.init))
            let found = try await Self.run { () async throws(AdminError) in
                try await schedules.list(environment: environment, flag: key, limit: limit)
            }
            return JSONBody.response(found)
        }
        group.post("/environments/:environment/flags/:key/schedules") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ScheduleRequests.ScheduleBody.self, from: request, limit: limits.maximumAdminBytes)
            let draft = try body.draft()
            let schedules = try scheduleService()
            let created = try await Self.run { () async throws(AdminError) in
                try await schedules.create(environment: environment, flag: key, draft: draft, actor: Self.actor(token))
            }
            return JSONBody.response(created, status: .created)
        }
        group.get("/environments/:environment/flags/:key/schedules/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let id = try context.parameters.require("id")
            _ = try authenticator.authorize(request, role: .admin, environment: environment)
            let schedules = try scheduleService()
            let found = try await Self.run { () async throws(AdminError) in
                try await schedules.schedule(id: id, environment: environment, flag: key)
            }
            return JSONBody.response(found)
        }
        group.put("/environments/:environment/flags/:key/schedules/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let body = try await JSONBody.decode(ScheduleRequests.ScheduleBody.self, from: request, limit: limits.maximumAdminBytes)
            let draft = try body.draft()
            let schedules = try scheduleService()
            let edited = try await Self.run { () async throws(AdminError) in
                try await schedules.edit(
                    id: id, environment: environment, flag: key, draft: draft, version: body.version, actor: Self.actor(token))
            }
            return JSONBody.response(edited)
        }
        group.delete("/environments/:environment/flags/:key/schedules/:id") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            let id = try context.parameters.require("id")
            let token = try authenticator.authorize(request, role: .admin, environment: environment)
            let reason = request.uri.queryParameters["reason"].map(String.init)
            let schedules = try scheduleService()
            let cancelled = try await Self.run { () async throws(AdminError) in
                try await schedules.cancel(id: id, environment: environment, flag: key, reason: reason, actor: Self.actor(token))
            }
            return JSONBody.response(cancelled)
        }
    }

    /// The scheduled changes of the server's store.
    func scheduleService() throws -> Schedules {
        guard let store = admin.store.capabilities.schedules else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no scheduled changes")
        }
        return Schedules(admin: admin, store: store, now: now)
    }

    /// The `limit` query parameter of a listing: 1 to ``Schedules/maximumListLimit``, 100 when absent.
    static func scheduleLimit(_ text: String?) throws -> Int {
        guard let text else { return 100 }
        guard let limit = Int(text), (1...Schedules.maximumListLimit).contains(limit) else {
            throw APIError(.badRequest, code: "bad_request", message: "limit: expected 1 to \(Schedules.maximumListLimit), got \"\(text.prefix(32))\"")
        }
        return limit
    }
}
