import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Console users through the admin API (`*` admin tokens): list, create (a generated password,
/// answered once), change role or disable, reset the password. The console's users page calls
/// the same ``ConsoleAccounts`` functions; every change is audited (``AuditEntry/Subject/user``).
extension AdminRoutes {
    func registerUserRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/users") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let accounts = try requireAccounts()
            return JSONBody.response(try await Self.run { () throws(AdminError) in try await accounts.users() }.map(AdminResponses.User.init))
        }
        group.post("/users") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let accounts = try requireAccounts()
            let body = try await JSONBody.decode(AdminRequests.CreateUser.self, from: request, limit: limits.maximumAdminBytes)
            let password = ConsoleAccounts.generatedPassword()
            let user = try await Self.run { () throws(AdminError) in
                try await accounts.createUser(name: body.name, password: password, role: body.role, actor: Self.actor(token))
            }
            return JSONBody.response(AdminResponses.CreatedUser(user: AdminResponses.User(user), password: password), status: .created)
        }
        group.put("/users/:name") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let accounts = try requireAccounts()
            let name = try context.parameters.require("name")
            let body = try await JSONBody.decode(AdminRequests.PutUser.self, from: request, limit: limits.maximumAdminBytes)
            let user = try await Self.run { () throws(AdminError) in
                try await accounts.updateUser(name, role: body.role, disabled: body.disabled, actor: Self.actor(token))
            }
            return JSONBody.response(AdminResponses.User(user))
        }
        group.post("/users/:name/password") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let accounts = try requireAccounts()
            let name = try context.parameters.require("name")
            let password = try await Self.run { () throws(AdminError) in
                try await accounts.resetPassword(of: name, actor: Self.actor(token))
            }
            return JSONBody.response(AdminResponses.Password(password: password))
        }
        group.put("/environments/order") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let body = try await JSONBody.decode(AdminRequests.OrderEnvironments.self, from: request, limit: limits.maximumAdminBytes)
            return try await write(token, reason: body.reason) { state throws(AdminError) in
                [try EnvironmentOrder.change(body.environments, in: state)]
            }
        }
    }

    /// The audit's actor for a token.
    static func actor(_ token: TokenRecord) -> String { "token \(token.name) (\(token.id))" }

    func requireAccounts() throws -> ConsoleAccounts {
        guard let accounts else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no console users")
        }
        return accounts
    }

    static func run<T>(_ body: () async throws(AdminError) -> T) async throws -> T {
        do { return try await body() } catch { throw APIError(error) }
    }
}

/// Checking a new order of the environments before it is written.
enum EnvironmentOrder {
    /// The change listing the environments as `keys`, which must name every environment once.
    ///
    /// - Throws: ``AdminError/badRequest(_:)`` when a key is listed twice (wrong whatever the
    ///   state); ``AdminError/conflict(_:)`` when the keys are not the current environments
    ///   (one was added or deleted since the list was read, or a name is wrong): read them again
    ///   with `GET /admin/v1/environments` and send the whole order.
    static func change(_ keys: [String], in state: ServerState) throws(AdminError) -> StateChange {
        var seen = Set<String>()
        let repeated = Set(keys.filter { !seen.insert($0).inserted }).sorted()
        guard repeated.isEmpty else {
            throw .badRequest("environments: \(Self.quoted(repeated)) listed more than once; list every environment once")
        }
        let known = Set(state.environments.keys)
        let unknown = keys.filter { !known.contains($0) }
        let missing = known.subtracting(keys).sorted()
        guard unknown.isEmpty, missing.isEmpty else {
            var differences: [String] = []
            if !unknown.isEmpty { differences.append("not environments: \(Self.quoted(unknown))") }
            if !missing.isEmpty { differences.append("missing: \(Self.quoted(missing))") }
            throw .conflict(
                "environments: the order must list the current environments once each (\(differences.joined(separator: "; "))); read them with GET /admin/v1/environments and send the whole order again")
        }
        return .orderEnvironments(keys)
    }

    private static func quoted(_ keys: [String]) -> String {
        keys.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
