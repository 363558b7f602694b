import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `/admin/v1/webhooks` through the real routes, with the dispatcher's service running as it does
/// in `serve` (Server/Docs/Webhooks.md).
struct WebhookAPITests {
    static var localOptions: WebhookOptions {
        var options = WebhookOptions()
        options.allowsLocalTargets = true
        return options
    }

    @Test
    func endpointsAreManagedAndTheSecretIsShownOnlyOnCreationAndRotation() async throws {
        try await WebhookReceiver.with { receiver, base in
            try await TestServer.with(webhooks: Self.localOptions) { server in
                let admin = server.adminToken
                let created = try await server.request(
                    .POST, "/admin/v1/webhooks", token: admin,
                    body: #"{"url": "\#(base)/hooks", "kinds": ["ping", "flag.changed"], "description": "chat"}"#)
                #expect(created.status == 201, "\(created.body)")
                let id = try #require(created.json?["id"]?.stringValue)
                let secret = try #require(created.json?["secret"]?.stringValue)
                #expect(secret.hasPrefix("whsec_"))
                #expect(created.json?["enabled"] == true)

                let listed = try await server.request(.GET, "/admin/v1/webhooks", token: admin)
                #expect(listed.status == 200)
                #expect(listed.json?.arrayValue?.compactMap { $0["id"]?.stringValue } == [id])
                let one = try await server.request(.GET, "/admin/v1/webhooks/\(id)", token: admin)
                #expect(one.json?["description"] == "chat")

                // A ping reaches the receiver, signed with the secret shown at creation.
                let ping = try await server.request(.POST, "/admin/v1/webhooks/\(id)/ping", token: admin)
                #expect(ping.status == 202, "\(ping.body)")
                var arrivals = receiver.arrivals.makeAsyncIterator()
                let arrived = try #require(await arrivals.next())
                #expect(arrived.headers["webhook-id"] == ping.json?["id"]?.stringValue)
                let timestamp = try #require(arrived.headers["webhook-timestamp"].flatMap { Int($0) })
                let verified = try WebhookDispatcherTests.verify(
                    secret: secret, header: arrived.headers["webhook-signature"] ?? "", body: arrived.body, now: timestamp)
                #expect(verified.0 == 0, "\(verified.1)")
                #expect(try JSONValue(parsing: arrived.body)["kind"] == "ping")

                let deliveries = try await server.request(.GET, "/admin/v1/webhooks/\(id)/deliveries?limit=10", token: admin)
                #expect(deliveries.status == 200)
                #expect(deliveries.json?.arrayValue?.first?["id"] == ping.json?["id"])
                let redelivered = try await server.request(
                    .POST, "/admin/v1/webhooks/\(id)/deliveries/\(ping.json?["id"]?.stringValue ?? "")/redeliver", token: admin)
                #expect(redelivered.status == 202)
                #expect(redelivered.json?["status"] == "pending")
                let missing = try await server.request(.POST, "/admin/v1/webhooks/\(id)/deliveries/whd_nothing/redeliver", token: admin)
                #expect(missing.status == 404)

                let changed = try await server.request(
                    .PUT, "/admin/v1/webhooks/\(id)", token: admin, body: #"{"url": "\#(base)/other", "enabled": false}"#)
                #expect(changed.status == 200)
                #expect(changed.json?["enabled"] == false)
                #expect(changed.json?["kinds"] == nil)
                let refusedPing = try await server.request(.POST, "/admin/v1/webhooks/\(id)/ping", token: admin)
                #expect(refusedPing.status == 409)

                let rotated = try await server.request(.POST, "/admin/v1/webhooks/\(id)/rotate-secret", token: admin)
                #expect(rotated.status == 200)
                let newSecret = try #require(rotated.json?["secret"]?.stringValue)
                #expect(newSecret != secret)

                // No answer after creation and rotation holds a secret; nor does the audit.
                let answers = [listed, one, deliveries, changed, redelivered]
                for answer in answers {
                    #expect(!answer.body.contains(secret))
                    #expect(!answer.body.contains("whsec_"))
                }
                let audit = try await server.server.admin.store.audit(environment: AuditEntry.accountsEnvironment, key: id, limit: 10)
                #expect(audit.count == 3)
                #expect(!"\(audit)".contains("whsec_"))

                let deleted = try await server.request(.DELETE, "/admin/v1/webhooks/\(id)?reason=done", token: admin)
                #expect(deleted.status == 204)
                #expect(try await server.request(.GET, "/admin/v1/webhooks/\(id)", token: admin).status == 404)
                #expect(try await server.request(.DELETE, "/admin/v1/webhooks/\(id)", token: admin).status == 404)
            }
        }
    }

    @Test
    func onlyAdminsForEveryEnvironmentManageWebhooksAndLocalURLsAreRefused() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            let token = try await server.request(
                .POST, "/admin/v1/tokens", token: admin, body: #"{"name": "prod-admin", "environment": "production", "role": "admin"}"#)
            let production = try #require(token.json?["token"]?.stringValue)
            #expect(try await server.request(.GET, "/admin/v1/webhooks", token: production).status == 403)
            #expect(try await server.request(.GET, "/admin/v1/webhooks", token: nil).status == 401)
            let local = try await server.request(.POST, "/admin/v1/webhooks", token: admin, body: #"{"url": "http://127.0.0.1:9/x"}"#)
            #expect(local.status == 400)
            #expect(local.json?["error"]?["message"]?.stringValue?.hasPrefix("url:") == true)
            let kind = try await server.request(
                .POST, "/admin/v1/webhooks", token: admin, body: #"{"url": "https://hooks.example.com/x", "kinds": ["flag.exploded"]}"#)
            #expect(kind.status == 400)
            #expect(try await server.request(.GET, "/admin/v1/webhooks", token: admin).json?.arrayValue?.isEmpty == true)
        }
    }

    @Test
    func aWriteAnswersWhileTheEndpointHangs() async throws {
        try await WebhookReceiver.with { receiver, base in
            // A receiver that never answers, and a timeout longer than any test: a write waiting
            // for the endpoint would never answer.
            var options = Self.localOptions
            options.requestTimeout = .seconds(3600)
            try await TestServer.with(webhooks: options) { server in
                receiver.script(Array(repeating: .hang, count: 16))
                let created = try await server.request(.POST, "/admin/v1/webhooks", token: server.adminToken, body: #"{"url": "\#(base)"}"#)
                #expect(created.status == 201)
                // The first write's notification reaches the endpoint, which does not answer.
                try await server.booleanFlag("checkout")
                var arrivals = receiver.arrivals.makeAsyncIterator()
                _ = await arrivals.next()
                #expect(receiver.hangingCount >= 1)
                // Writes go on answering while it hangs.
                for index in 0..<5 {
                    let reply = try await server.request(
                        .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: server.adminToken,
                        body: #"{"enabled": \#(index % 2 == 0), "defaultVariant": "on"}"#)
                    #expect(reply.status == 200)
                }
                #expect(receiver.hangingCount >= 1)
            }
        }
    }
}
