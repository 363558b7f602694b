import FlagEvaluation
import FlagServerModel
import Foundation

/// The admin operations on webhook endpoints (`/admin/v1/webhooks`), each audited under the
/// environment `*` at revision 0 (subject ``AuditEntry/Subject/webhook``). The audit records the
/// endpoint without its secret; a rotation records only that it happened.
struct WebhookAdministration: Sendable {
    let store: any WebhookStore
    let options: WebhookOptions
    let now: @Sendable () -> Date

    /// What an admin sets on an endpoint.
    struct Settings: Sendable {
        var url: String
        var kinds: [String]?
        var environments: [String]?
        var enabled: Bool?
        var description: String?
    }

    static let maximumListItems = 64
    static let maximumDescriptionBytes = 500

    /// Refuses settings the server cannot use, naming the field.
    func check(_ settings: Settings) throws(AdminError) {
        if let problem = options.problem(url: settings.url) { throw .badRequest(problem) }
        if let kinds = settings.kinds {
            guard kinds.count <= Self.maximumListItems else { throw .badRequest("kinds: more than \(Self.maximumListItems)") }
            let known = Set(ServerNotification.Kind.all.map(\.rawValue))
            if let unknown = kinds.first(where: { !known.contains($0) }) {
                throw .badRequest("kinds: \"\(unknown.prefix(100))\" is no notification kind (see Server/Docs/Webhooks.md)")
            }
        }
        if let environments = settings.environments {
            guard environments.count <= Self.maximumListItems else { throw .badRequest("environments: more than \(Self.maximumListItems)") }
            if environments.contains(where: { $0.isEmpty || $0.utf8.count > 128 }) {
                throw .badRequest("environments: every name must have 1 to 128 bytes")
            }
        }
        if let description = settings.description, description.utf8.count > Self.maximumDescriptionBytes {
            throw .badRequest("description: longer than \(Self.maximumDescriptionBytes) bytes")
        }
    }

    func endpoints() async throws(AdminError) -> [WebhookEndpoint] {
        do { return try await store.webhookEndpoints() } catch { throw AdminError(store: error) }
    }

    func endpoint(id: String) async throws(AdminError) -> WebhookEndpoint {
        let found: WebhookEndpoint?
        do { found = try await store.webhookEndpoint(id: id) } catch { throw AdminError(store: error) }
        guard let found else { throw .notFound("webhook \"\(id)\" does not exist") }
        return found
    }

    /// Creates an endpoint with a new secret; the caller shows the secret this once.
    func create(_ settings: Settings, actor: String) async throws(AdminError) -> WebhookEndpoint {
        try check(settings)
        let time = now()
        let endpoint = WebhookEndpoint(
            id: WebhookEndpoint.newID(), url: settings.url, kinds: settings.kinds, environments: settings.environments,
            enabled: settings.enabled ?? true, description: settings.description, secret: .generate(), createdAt: time, updatedAt: time)
        try await put(endpoint, before: nil, actor: actor, reason: "webhook created")
        return endpoint
    }

    /// Replaces an endpoint's settings (its secret stays).
    func update(id: String, _ settings: Settings, actor: String) async throws(AdminError) -> WebhookEndpoint {
        try check(settings)
        let before = try await endpoint(id: id)
        var endpoint = before
        endpoint.url = settings.url
        endpoint.kinds = settings.kinds
        endpoint.environments = settings.environments
        endpoint.enabled = settings.enabled ?? true
        endpoint.description = settings.description
        endpoint.updatedAt = now()
        try await put(endpoint, before: before, actor: actor, reason: "webhook changed")
        return endpoint
    }

    /// Gives an endpoint a new secret; the old one stops signing at once.
    func rotateSecret(id: String, actor: String) async throws(AdminError) -> WebhookEndpoint {
        let before = try await endpoint(id: id)
        var endpoint = before
        endpoint.secret = .generate()
        endpoint.updatedAt = now()
        try await put(endpoint, before: before, actor: actor, reason: "webhook secret rotated")
        return endpoint
    }

    func delete(id: String, actor: String, reason: String?) async throws(AdminError) {
        let before = try await endpoint(id: id)
        do {
            try await store.deleteWebhookEndpoint(id: id, audit: audit(id: id, before: before, after: nil, actor: actor, reason: reason ?? "webhook deleted"))
        } catch {
            throw AdminError(store: error)
        }
    }

    /// Queues a `ping` to the endpoint (whatever its kinds and environments).
    func ping(id: String, actor: String) async throws(AdminError) -> WebhookDelivery {
        let endpoint = try await endpoint(id: id)
        guard endpoint.enabled else { throw .conflict("webhook \"\(id)\" is disabled; enable it first") }
        let time = now()
        let notification = ServerNotification(
            kind: .ping, time: time, actor: actor, summary: "ping from the flag server", details: ["webhook": .string(id)])
        guard let body = WebhookPayload.body(of: notification) else { throw .internalFailure("the ping did not encode") }
        let delivery = WebhookDelivery(endpoint: id, kind: ServerNotification.Kind.ping.rawValue, body: body, at: time)
        do { try await store.insertWebhookDeliveries([delivery]) } catch { throw AdminError(store: error) }
        return delivery
    }

    /// The endpoint's deliveries, newest first.
    func deliveries(id: String, limit: Int) async throws(AdminError) -> [WebhookDelivery] {
        _ = try await endpoint(id: id)
        do { return try await store.webhookDeliveries(endpoint: id, limit: limit) } catch { throw AdminError(store: error) }
    }

    /// Sends a delivery again from its first attempt: pending, due now, with a whole new series of
    /// attempts (its log keeps the earlier ones). The body and `Webhook-Id` stay the same.
    func redeliver(id: String, delivery deliveryID: String) async throws(AdminError) -> WebhookDelivery {
        let endpoint = try await endpoint(id: id)
        guard endpoint.enabled else { throw .conflict("webhook \"\(id)\" is disabled; enable it first") }
        let found: WebhookDelivery?
        do { found = try await store.webhookDelivery(id: deliveryID) } catch { throw AdminError(store: error) }
        guard var delivery = found, delivery.endpoint == id else {
            throw .notFound("delivery \"\(deliveryID)\" of webhook \"\(id)\" does not exist")
        }
        let time = now()
        delivery.status = .pending
        delivery.attemptCount = 0
        delivery.nextAttemptAt = time
        delivery.updatedAt = time
        do { try await store.updateWebhookDelivery(delivery) } catch { throw AdminError(store: error) }
        return delivery
    }

    private func put(_ endpoint: WebhookEndpoint, before: WebhookEndpoint?, actor: String, reason: String) async throws(AdminError) {
        do {
            try await store.putWebhookEndpoint(endpoint, audit: audit(id: endpoint.id, before: before, after: endpoint, actor: actor, reason: reason))
        } catch {
            throw AdminError(store: error)
        }
    }

    /// The audit entry of a change: the endpoint's encoding, which never holds its secret.
    private func audit(id: String, before: WebhookEndpoint?, after: WebhookEndpoint?, actor: String, reason: String) -> AuditEntry {
        AuditEntry(
            environment: AuditEntry.accountsEnvironment, revision: 0, time: now(), actor: actor, reason: reason, subject: .webhook,
            key: id, before: before.map { JSONValue(encoding: $0) }, after: after.map { JSONValue(encoding: $0) })
    }
}
