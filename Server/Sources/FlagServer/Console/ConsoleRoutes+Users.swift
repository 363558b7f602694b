import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Console users, for console admins: create one (its generated password shown once), change a
/// role, disable or enable, reset a password. The same ``ConsoleAccounts`` functions as
/// `/admin/v1/users`, audited with the admin's name as the actor.
extension ConsoleRoutes {
    func registerUsers(on router: Router<BasicRequestContext>) {
        router.get("/console/users") { request, _ in
            try await page(request) { visitor in
                guard visitor.user.role >= .admin else {
                    return refusal(.forbidden, "Only console admins manage users.", visitor: visitor)
                }
                return try await usersPage(request, visitor)
            }
        }
        router.post("/console/users") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
                guard let role = ConsoleRole(rawValue: form["role"] ?? "") else {
                    return try await usersPage(request, visitor, error: "role: choose viewer, editor or admin", status: .badRequest)
                }
                let password = ConsoleAccounts.generatedPassword()
                do {
                    try await accounts.createUser(name: name, password: password, role: role, actor: visitor.user.name)
                } catch let error as AdminError {
                    return try await usersPage(request, visitor, error: error.description, status: APIError(error).status)
                }
                return try await usersPage(request, visitor, shown: (name, password, "Created"))
            }
        }
        router.post("/console/users/role") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                guard let role = ConsoleRole(rawValue: form["role"] ?? "") else {
                    return try await usersPage(request, visitor, error: "role: choose viewer, editor or admin", status: .badRequest)
                }
                return try await updateUser(request, visitor, form["name"] ?? "", done: "role") { name throws(AdminError) in
                    try await accounts.updateUser(name, role: role, actor: visitor.user.name)
                }
            }
        }
        router.post("/console/users/disabled") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                let disabled = form["disabled"] == "true"
                return try await updateUser(request, visitor, form["name"] ?? "", done: disabled ? "disabled" : "enabled") {
                    name throws(AdminError) in try await accounts.updateUser(name, disabled: disabled, actor: visitor.user.name)
                }
            }
        }
        router.post("/console/users/password") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                let name = form["name"] ?? ""
                let password: String
                do {
                    password = try await accounts.resetPassword(of: name, actor: visitor.user.name)
                } catch let error as AdminError {
                    return try await usersPage(request, visitor, error: error.description, status: APIError(error).status)
                }
                return try await usersPage(request, visitor, shown: (name, password, "Reset the password of"))
            }
        }
    }

    func updateUser(
        _ request: Request, _ visitor: Visitor, _ name: String, done: String,
        _ body: (String) async throws(AdminError) -> ConsoleUser
    ) async throws -> Response {
        do {
            _ = try await body(name)
        } catch {
            return try await usersPage(request, visitor, error: error.description, status: APIError(error).status)
        }
        return Self.redirect("/console/users?done=\(done)")
    }

    static let userNotices = [
        "role": "Saved the role.", "disabled": "Disabled: the user is signed out and cannot sign in.",
        "enabled": "Enabled: the user can sign in again.",
    ]

    func usersPage(
        _ request: Request, _ visitor: Visitor, shown: (name: String, password: String, what: String)? = nil,
        error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let users: [ConsoleUser]
        let changes: [AuditEntry]
        do {
            users = try await accounts.users()
            changes = try await accounts.store.consoleUserAudit(limit: 50)
        } catch let error as AdminError {
            throw APIError(error)
        } catch let error as StoreError {
            throw APIError(AdminError(store: error))
        }
        let formatter = ISO8601DateFormatter()
        var context = layout(visitor, title: "Users", section: "users")
        context["users"] = users.map { user -> [String: Any] in
            [
                "name": user.name, "role": user.role.rawValue, "created": formatter.string(from: user.createdAt),
                "disabled": user.disabledAt != nil, "state": user.disabledAt == nil ? "active" : "disabled",
                "self": user.name == visitor.user.name,
                "roles": ConsoleRole.allCases.map { ["value": $0.rawValue, "selected": $0 == user.role] as [String: Any] },
            ]
        }
        context["roles"] = ConsoleRole.allCases.map { ["value": $0.rawValue, "selected": $0 == .viewer] as [String: Any] }
        context["changes"] = changes.map { entry -> [String: Any] in
            Self.omittingEmpty([
                "time": formatter.string(from: entry.time), "actor": entry.actor, "key": entry.key, "reason": entry.reason ?? "",
            ], ["reason"])
        }
        if let shown {
            context["shown"] = ["name": shown.name, "password": shown.password, "what": shown.what]
        }
        context["error"] = error
        context["notice"] = Self.query(of: request)["done"].flatMap { Self.userNotices[$0] }
        context["singleSignOn"] = options.singleSignOn.map { ["name": $0.displayName, "claim": $0.roleClaim] }
        return renderer.page("users", context, status: status)
    }
}
