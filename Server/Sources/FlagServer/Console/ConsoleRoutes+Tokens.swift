import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Tokens: the list (never the token text), creating one (its text shown once) and revoking
/// one. Changing tokens needs the console role admin; the functions are the admin API's
/// (``FlagAdmin/createToken(name:environment:role:)``, ``FlagAdmin/revokeToken(id:)``).
extension ConsoleRoutes {
    func registerTokens(on router: Router<BasicRequestContext>) {
        router.get("/console/tokens") { request, _ in
            try await page(request) { visitor in await tokensPage(request, visitor) }
        }
        router.post("/console/tokens") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                guard let role = TokenRole(rawValue: form["role"] ?? "") else {
                    return await tokensPage(request, visitor, error: "role: choose client, server or admin", status: .badRequest)
                }
                let name = (form["name"] ?? "").trimmingCharacters(in: .whitespaces)
                guard !name.isEmpty, name.utf8.count <= 128 else {
                    return await tokensPage(request, visitor, error: "name: 1–128 bytes, to tell the token apart", status: .badRequest)
                }
                return await createToken(request, visitor, name: name, environment: form["environment"] ?? "", role: role)
            }
        }
        router.post("/console/tokens/revoke") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                return await revokeToken(request, visitor, id: form["id"] ?? "")
            }
        }
    }

    func createToken(_ request: Request, _ visitor: Visitor, name: String, environment: String, role: TokenRole) async -> Response {
        do {
            let (token, record) = try await admin.createToken(name: name, environment: environment, role: role)
            return await tokensPage(request, visitor, created: (token, record))
        } catch {
            return await tokensPage(request, visitor, error: error.description, status: APIError(error).status)
        }
    }

    func revokeToken(_ request: Request, _ visitor: Visitor, id: String) async -> Response {
        do {
            try await admin.revokeToken(id: id)
        } catch {
            return await tokensPage(request, visitor, error: error.description, status: APIError(error).status)
        }
        return Self.redirect("/console/tokens?done=revoked")
    }

    func tokensPage(
        _ request: Request, _ visitor: Visitor, created: (String, TokenRecord)? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        let state = await admin.state
        let tokens = admin.publisher.current.tokens.values.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        let formatter = ISO8601DateFormatter()
        var context = layout(visitor, title: "Tokens", section: "tokens")
        context["canManage"] = visitor.user.role >= .admin
        context["tokens"] = tokens.map { token -> [String: Any] in
            [
                "id": token.id, "name": token.name, "environment": token.environment, "role": token.role.rawValue,
                "created": formatter.string(from: token.createdAt), "revoked": token.revokedAt.map(formatter.string(from:)) ?? "",
                "active": token.revokedAt == nil,
            ]
        }
        // The form starts on a combination delivery accepts: a client token for the first listed
        // environment (`*` is for admin tokens only).
        let environments = state.orderedEnvironmentKeys
        context["environments"] = (environments + [TokenIssuer.allEnvironments]).map { key -> [String: Any] in
            ["value": key, "selected": key == environments.first, "label": key == TokenIssuer.allEnvironments ? "* (every environment; admin tokens only)" : key]
        }
        context["roles"] = TokenRole.allCases.map { ["value": $0.rawValue, "selected": $0 == .client] as [String: Any] }
        if let (token, record) = created {
            context["created"] = ["token": token, "name": record.name, "environment": record.environment, "role": record.role.rawValue]
        }
        context["error"] = error
        context["notice"] = Self.query(of: request)["done"] == "revoked" ? "Revoked: the token stopped working." : nil
        return renderer.page("tokens", context, status: status)
    }
}
