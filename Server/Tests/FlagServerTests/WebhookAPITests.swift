import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
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

    /// Issue 34: every spelling of a loopback, unspecified or metadata address is refused when
    /// the endpoint is created (400, naming the URL and why), and nothing reaches a receiver on
    /// loopback, not even an endpoint stored before the rule (as under `--allow-local-webhooks`).
    @Test
    func everySpellingOfALocalAddressIsRefusedAtCreationAndNeverPosted() async throws {
        try await WebhookReceiver.with { receiver, base in
            let port = try #require(URL(string: base)?.port)
            // The strict rules; the service stores and sends nothing by itself during the test.
            var options = WebhookOptions()
            options.pollInterval = .seconds(3600)
            try await TestServer.with(webhooks: options) { server in
                let spellings = [
                    "127.1", "127.0.1", "0177.0.0.1", "0", "[0::1]", "[0000::1]", "[::0:1]", "[::ffff:7f00:1]", "2130706433",
                    "0x7f.1", "127.0.0.1.", "[::ffff:127.0.0.1]", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]",
                    "169.254.43518", "0251.254.169.254", "[::ffff:a9fe:a9fe]", "[fd00:ec2::254]", "10.1", "[fe80::1%25lo]",
                ]
                for host in spellings {
                    let url = "http://\(host):\(port)/hooks"
                    let reply = try await server.request(.POST, "/admin/v1/webhooks", token: server.adminToken, body: #"{"url": "\#(url)"}"#)
                    #expect(reply.status == 400, "\(url): \(reply.status) \(reply.body)")
                    let message = reply.json?["error"]?["message"]?.stringValue ?? ""
                    #expect(message.hasPrefix("url: "), "\(url): \(message)")
                    #expect(message.contains("--allow-local-webhooks"), "\(url): \(message)")
                }
                #expect(try await server.request(.GET, "/admin/v1/webhooks", token: server.adminToken).json?.arrayValue?.isEmpty == true)

                // Endpoints stored before (a server once started with --allow-local-webhooks):
                // each attempt is refused, nothing is posted.
                let store = try #require(server.server.admin.store as? any WebhookStore)
                let strict = try #require(server.server.webhooks)
                for host in ["127.1", "[::ffff:7f00:1]", "0"] {
                    let endpoint = WebhookEndpoint(
                        id: WebhookEndpoint.newID(), url: "http://\(host):\(port)/hooks", kinds: nil, environments: nil, enabled: true,
                        description: nil, secret: .generate(), createdAt: Date(), updatedAt: Date())
                    try await store.putWebhookEndpoint(
                        endpoint,
                        audit: AuditEntry(
                            environment: AuditEntry.accountsEnvironment, revision: 0, time: Date(), actor: "test", reason: "stored earlier",
                            subject: .webhook, key: endpoint.id, before: nil, after: nil))
                }
                try await server.booleanFlag("checkout")
                let attempted = await strict.deliverDue()
                // Three endpoints, four notifications each (a new flag in three environments, its settings).
                #expect(attempted.count == 12)
                for delivery in attempted {
                    #expect(delivery.lastStatusCode == nil)
                    #expect(delivery.lastError?.hasPrefix("refused: url: ") == true, "\(delivery.lastError ?? "")")
                }
                #expect(receiver.received.isEmpty)
            }
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
