import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The bodies of the webhook routes.
enum WebhookRequests {
    /// `POST /admin/v1/webhooks` and `PUT /admin/v1/webhooks/{id}`.
    struct Put: DocumentedRequestBody {
        static var schemaName: String { "WebhookBody" }
        var url: String
        var kinds: [String]?
        var environments: [String]?
        var enabled: Bool?
        var description: String?

        var settings: WebhookAdministration.Settings {
            .init(url: url, kinds: kinds, environments: environments, enabled: enabled, description: description)
        }
    }
}

/// An endpoint with its secret: the answer of its creation and of a rotation, the only ones that
/// show the secret.
struct WebhookWithSecret: Encodable {
    var endpoint: WebhookEndpoint

    enum Extra: String, CodingKey { case secret }

    func encode(to encoder: any Encoder) throws {
        try endpoint.encode(to: encoder)
        var container = encoder.container(keyedBy: Extra.self)
        try container.encode(endpoint.secret.text, forKey: .secret)
    }
}

extension AdminRoutes {
    /// Webhook endpoints and their delivery log (`Server/Docs/Webhooks.md`): admin tokens for
    /// every environment only.
    func registerWebhookRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.get("/webhooks") { request, _ in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let webhooks = try requireWebhooks()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await webhooks.endpoints() })
        }
        group.post("/webhooks") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let webhooks = try requireWebhooks()
            let body = try await JSONBody.decode(WebhookRequests.Put.self, from: request, limit: limits.maximumAdminBytes)
            let created = try await Self.run { () async throws(AdminError) in try await webhooks.create(body.settings, actor: Self.actor(token)) }
            return JSONBody.response(WebhookWithSecret(endpoint: created), status: .created)
        }
        group.get("/webhooks/:id") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await webhooks.endpoint(id: id) })
        }
        group.put("/webhooks/:id") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            let body = try await JSONBody.decode(WebhookRequests.Put.self, from: request, limit: limits.maximumAdminBytes)
            return JSONBody.response(try await Self.run { () async throws(AdminError) in
                try await webhooks.update(id: id, body.settings, actor: Self.actor(token))
            })
        }
        group.delete("/webhooks/:id") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            let reason = request.uri.queryParameters["reason"].map(String.init)
            try await Self.run { () async throws(AdminError) in try await webhooks.delete(id: id, actor: Self.actor(token), reason: reason) }
            return Response(status: .noContent)
        }
        group.post("/webhooks/:id/ping") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            let delivery = try await Self.run { () async throws(AdminError) in try await webhooks.ping(id: id, actor: Self.actor(token)) }
            return JSONBody.response(delivery, status: .accepted)
        }
        group.post("/webhooks/:id/rotate-secret") { request, context in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            let rotated = try await Self.run { () async throws(AdminError) in try await webhooks.rotateSecret(id: id, actor: Self.actor(token)) }
            return JSONBody.response(WebhookWithSecret(endpoint: rotated))
        }
        group.get("/webhooks/:id/deliveries") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let webhooks = try requireWebhooks()
            let limit = min(max(request.uri.queryParameters["limit"].flatMap { Int($0) } ?? 50, 1), 100)
            return JSONBody.response(try await Self.run { () async throws(AdminError) in try await webhooks.deliveries(id: id, limit: limit) })
        }
        group.post("/webhooks/:id/deliveries/:delivery/redeliver") { request, context in
            _ = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let id = try context.parameters.require("id")
            let deliveryID = try context.parameters.require("delivery")
            let webhooks = try requireWebhooks()
            let delivery = try await Self.run { () async throws(AdminError) in try await webhooks.redeliver(id: id, delivery: deliveryID) }
            return JSONBody.response(delivery, status: .accepted)
        }
    }

    func requireWebhooks() throws -> WebhookAdministration {
        guard let webhooks else {
            throw APIError(.notFound, code: "not_found", message: "this server's store keeps no webhooks")
        }
        return webhooks
    }
}
