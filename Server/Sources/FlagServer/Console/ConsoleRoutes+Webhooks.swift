import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Webhooks (`Server/Docs/Webhooks.md`): the endpoints with their recent deliveries, adding one
/// (its secret shown once) and deleting one. Console admins only: the functions are the admin
/// API's (``WebhookAdministration``).
extension ConsoleRoutes {
    func registerWebhooks(on router: Router<BasicRequestContext>) {
        router.get("/console/webhooks") { request, _ in
            try await page(request) { visitor in
                guard visitor.user.role >= .admin else {
                    return refusal(.forbidden, "Only console admins see webhooks.", visitor: visitor)
                }
                return await webhooksPage(request, visitor)
            }
        }
        router.post("/console/webhooks") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                guard let webhooks else { return refusal(.notFound, "This server's store keeps no webhooks.", visitor: visitor) }
                let kinds = (form["kinds"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let environments = (form["environments"] ?? "").split(separator: ",")
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                let settings = WebhookAdministration.Settings(
                    url: (form["url"] ?? "").trimmingCharacters(in: .whitespaces), kinds: kinds.isEmpty ? nil : kinds,
                    environments: environments.isEmpty ? nil : environments, enabled: true,
                    description: (form["description"] ?? "").isEmpty ? nil : form["description"])
                do throws(AdminError) {
                    let created = try await webhooks.create(settings, actor: visitor.user.name)
                    return await webhooksPage(request, visitor, created: created)
                } catch {
                    return await webhooksPage(request, visitor, error: error.description, status: APIError(error).status)
                }
            }
        }
        router.post("/console/webhooks/delete") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                guard let webhooks else { return refusal(.notFound, "This server's store keeps no webhooks.", visitor: visitor) }
                do throws(AdminError) {
                    try await webhooks.delete(id: form["id"] ?? "", actor: visitor.user.name, reason: nil)
                } catch {
                    return await webhooksPage(request, visitor, error: error.description, status: APIError(error).status)
                }
                return Self.redirect("/console/webhooks?done=deleted")
            }
        }
    }

    /// How many deliveries of each endpoint the page lists.
    static let webhookPageDeliveries = 5

    func webhooksPage(
        _ request: Request, _ visitor: Visitor, created: WebhookEndpoint? = nil, error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        var context = layout(visitor, title: "Webhooks", section: "webhooks")
        let formatter = ISO8601DateFormatter()
        var problem = error
        var endpoints: [[String: Any]] = []
        if let webhooks {
            do {
                for endpoint in try await webhooks.endpoints() {
                    let deliveries = try await webhooks.deliveries(id: endpoint.id, limit: Self.webhookPageDeliveries)
                    endpoints.append([
                        "id": endpoint.id, "url": endpoint.url, "description": endpoint.description ?? "",
                        "kinds": endpoint.kinds?.joined(separator: ", ") ?? "every kind",
                        "environments": endpoint.environments?.joined(separator: ", ") ?? "every environment",
                        "enabled": endpoint.enabled,
                        "deliveries": deliveries.map { delivery -> [String: Any] in
                            [
                                "id": delivery.id, "kind": delivery.kind, "status": delivery.status.rawValue,
                                "attempts": delivery.attemptCount, "created": formatter.string(from: delivery.createdAt),
                                "last": delivery.lastStatusCode.map { "answered \($0)" } ?? delivery.lastError ?? "",
                            ]
                        },
                    ])
                }
            } catch {
                problem = problem ?? error.description
            }
        } else {
            problem = problem ?? "This server's store keeps no webhooks."
        }
        context["endpoints"] = endpoints
        context["kinds"] = ServerNotification.Kind.all.map(\.rawValue).joined(separator: ", ")
        if let created {
            context["created"] = ["id": created.id, "url": created.url, "secret": created.secret.text]
        }
        context["error"] = problem
        context["notice"] = Self.query(of: request)["done"] == "deleted" ? "Deleted the webhook and its deliveries." : nil
        return renderer.page("webhooks", context, status: status)
    }
}
