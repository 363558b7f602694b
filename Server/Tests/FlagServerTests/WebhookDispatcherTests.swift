import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing

/// The webhook dispatcher driven by hand (no service running): what it stores for a write, how it
/// signs, retries, gives up and redelivers, against a receiver in the test process
/// (Server/Docs/Webhooks.md).
struct WebhookDispatcherTests {
    struct Rig {
        let server: FlagServer
        let dispatcher: WebhookDispatcher
        let store: any WebhookStore
        let seconds: ManualSeconds
        let administration: WebhookAdministration
        let logs: SecretRedactionTests.RecordedLines

        var now: Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds.value) }

        func write(_ changes: [StateChange], actor: String = "tester") async throws {
            try await server.admin.write(actor: actor, reason: "test") { _ in changes }
        }

        func flag(_ key: String, in environment: String = "production", sensitive: Bool = false) -> [StateChange] {
            [
                .putFlag(
                    FlagRecord(
                        key: key, type: .string, variants: ["secret": "s3cr3t-value", "plain": "plain-value"],
                        metadata: FlagRecordMetadata(sensitive: sensitive)),
                    initialSettings: FlagSettings(enabled: true, defaultVariant: "secret")),
            ]
        }

        func endpoint(_ url: String, kinds: [String]? = nil, environments: [String]? = nil, enabled: Bool = true) async throws -> WebhookEndpoint {
            try await administration.create(
                .init(url: url, kinds: kinds, environments: environments, enabled: enabled, description: nil), actor: "tester")
        }
    }

    static func withRig(
        _ kind: StoreKind = .sqliteMemory, options: WebhookOptions = Self.localOptions, _ body: (Rig) async throws -> Void
    ) async throws {
        let store = try await kind.makeFlagStore()
        let seconds = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000 + seconds.value) }
        let logs = SecretRedactionTests.RecordedLines()
        let logger = Logger(label: "test") { _ in SecretRedactionTests.RecordingHandler(recorded: logs) }
        let (server, _) = try await FlagServer.start(
            store: store, configuration: .init(limits: .forTests, webhooks: options), logger: logger, now: now)
        let dispatcher = try #require(server.webhooks)
        // The first start's notifications (the environments it created), before any endpoint.
        await dispatcher.drain()
        let webhookStore: any WebhookStore = store
        let rig = Rig(
            server: server, dispatcher: dispatcher, store: webhookStore, seconds: seconds,
            administration: WebhookAdministration(store: webhookStore, options: options, now: now), logs: logs)
        do {
            try await body(rig)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    static var localOptions: WebhookOptions {
        var options = WebhookOptions()
        options.allowsLocalTargets = true
        return options
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aWriteIsDeliveredSignedOncePerEnvironmentWithKeysButNoValues(_ kind: StoreKind) async throws {
        try await Self.withRig(kind) { rig in
            try await WebhookReceiver.with { receiver, base in
                let endpoint = try await rig.endpoint(base + "/hooks")
                try await rig.write(rig.flag("payment-key", sensitive: true))
                let stored = await rig.dispatcher.drain()
                // A new flag gets settings in every environment: one notification per environment.
                #expect(stored.count == 3)
                #expect(Set(stored.map(\.kind)) == ["flag.changed"])
                let sent = await rig.dispatcher.deliverDue()
                #expect(sent.map(\.status) == [.delivered, .delivered, .delivered])
                let received = receiver.received
                #expect(received.count == 3)
                for request in received {
                    #expect(request.path == "/hooks")
                    #expect(request.headers["content-type"] == "application/json")
                    #expect(request.headers["webhook-id"]?.hasPrefix("whd_") == true)
                    #expect(request.headers["webhook-timestamp"] == String(Int(rig.now.timeIntervalSince1970)))
                    let signature = try #require(request.headers["webhook-signature"])
                    // An independent check: the documentation's Python receiver.
                    let (status, output) = try Self.verify(
                        secret: endpoint.secret.text, header: signature, body: request.body, now: Int(rig.now.timeIntervalSince1970))
                    #expect(status == 0, "\(output)")
                    // Another secret, or another body, does not verify.
                    #expect(try Self.verify(secret: "whsec_other", header: signature, body: request.body, now: Int(rig.now.timeIntervalSince1970)).0 == 1)
                    #expect(try Self.verify(secret: endpoint.secret.text, header: signature, body: request.body + " ", now: Int(rig.now.timeIntervalSince1970)).0 == 1)
                    // A replay ten minutes later does not either.
                    #expect(try Self.verify(secret: endpoint.secret.text, header: signature, body: request.body, now: Int(rig.now.timeIntervalSince1970) + 600).0 == 1)
                    let payload = try JSONValue(parsing: request.body)
                    #expect(payload["kind"] == "flag.changed")
                    #expect(payload["actor"] == "tester")
                    #expect(payload["flag"] == "payment-key")
                    #expect(payload["details"]?["flags"] == ["payment-key"])
                    #expect(payload["revision"]?.intValue != nil)
                    #expect(!request.body.contains("s3cr3t-value"))
                    #expect(!request.body.contains("plain-value"))
                }
                #expect(Set(received.compactMap { try? JSONValue(parsing: $0.body)["environment"]?.stringValue }) == ["development", "staging", "production"])
            }
        }
    }

    @Test
    func failuresAreRetriedWithBackoffAndEveryAttemptIsLogged() async throws {
        try await Self.withRig { rig in
            try await WebhookReceiver.with { receiver, base in
                let endpoint = try await rig.endpoint(base)
                receiver.script([.status(500), .status(503), .status(200)])
                let ping = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                var delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.status == .pending)
                #expect(delivery.attempts.map(\.statusCode) == [500])
                #expect(delivery.lastError == "answered 500")
                // The first pause is a minute, spread by at most a fifth either way.
                let pause = try #require(delivery.nextAttemptAt).timeIntervalSince(rig.now)
                #expect(pause >= 48 && pause <= 72, "\(pause)")
                // Not due yet: nothing is sent.
                #expect(await rig.dispatcher.deliverDue().isEmpty)
                rig.seconds.advance(by: 73)
                delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.attempts.map(\.statusCode) == [500, 503])
                let second = try #require(delivery.nextAttemptAt).timeIntervalSince(rig.now)
                #expect(second >= 144 && second <= 216, "\(second)")
                rig.seconds.advance(by: 217)
                delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.status == .delivered)
                #expect(delivery.attemptCount == 3)
                #expect(delivery.nextAttemptAt == nil)
                // The same Webhook-Id and body on every attempt.
                #expect(Set(receiver.received.compactMap { $0.headers["webhook-id"] }) == [ping.id])
                #expect(Set(receiver.received.map(\.body)) == [ping.body])
                let log = try await rig.store.webhookDeliveries(endpoint: endpoint.id, limit: 10)
                #expect(log.map(\.id) == [ping.id])
                #expect(log.first?.attempts.map(\.statusCode) == [500, 503, 200])
            }
        }
    }

    @Test
    func anEndpointThatDoesNotAnswerTimesOutAndIsRetried() async throws {
        var options = Self.localOptions
        options.requestTimeout = .milliseconds(200)
        try await Self.withRig(options: options) { rig in
            try await WebhookReceiver.with { receiver, base in
                let endpoint = try await rig.endpoint(base)
                receiver.script([.hang])
                _ = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                let delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.status == .pending)
                #expect(delivery.lastStatusCode == nil)
                #expect(delivery.lastError?.contains("no answer within") == true, "\(delivery.lastError ?? "")")
                #expect(delivery.nextAttemptAt != nil)
            }
        }
    }

    /// A name that passes the written-form check but resolves to a loopback address (besides a
    /// public one) is refused at the attempt, and nothing is sent.
    @Test
    func aNameResolvingToALoopbackAddressIsRefusedBeforeEachAttempt() async throws {
        var options = WebhookOptions()
        options.resolve = { host in host == "receiver.test" ? ["93.184.215.14", "127.0.0.1"] : [] }
        try await Self.withRig(options: options) { rig in
            try await WebhookReceiver.with { receiver, base in
                let port = try #require(URL(string: base)?.port)
                let endpoint = try await rig.endpoint("http://receiver.test:\(port)/hook")
                _ = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                let delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.lastStatusCode == nil)
                #expect(
                    delivery.lastError?.hasPrefix("refused: url: receiver.test resolves to 127.0.0.1, a loopback address;") == true,
                    "\(delivery.lastError ?? "")")
                #expect(receiver.received.isEmpty)
            }
        }
        var strict = WebhookOptions()
        strict.resolve = { host in host == "internal.test" ? ["10.0.0.5"] : host == "public.test" ? ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"] : [] }
        #expect(await strict.target(of: "http://internal.test/x") == .refused(
            "url: internal.test resolves to 10.0.0.5, a private address; " + WebhookOptions.refusalRule))
        #expect(await strict.target(of: "http://nowhere.test/x") == .refused("url: nowhere.test does not resolve"))
        #expect(await strict.target(of: "https://Public.Test/x") == .connect(
            host: "Public.Test", addresses: [IPAddress("93.184.215.14")!, IPAddress("2606:2800:21f:cb07:6820:80da:af6b:8b2c")!]))
        // Allowed local targets: resolved all the same, and connected to as resolved.
        var local = Self.localOptions
        local.resolve = strict.resolve
        #expect(await local.target(of: "http://internal.test/x") == .connect(host: "internal.test", addresses: [IPAddress("10.0.0.5")!]))
    }

    /// The attempt connects to the address the dispatcher resolved and judged, not to one the HTTP
    /// client looks up again: a name only the injected resolver knows is reached through it.
    @Test
    func anAttemptConnectsToTheAddressItChecked() async throws {
        var options = Self.localOptions
        options.resolve = { host in host == "receiver.test" ? ["127.0.0.1"] : [] }
        try await Self.withRig(options: options) { rig in
            try await WebhookReceiver.with { receiver, base in
                let port = try #require(URL(string: base)?.port)
                let endpoint = try await rig.endpoint("http://receiver.test:\(port)/hook")
                _ = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                let delivery = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivery.status == .delivered, "\(delivery.lastError ?? "")")
                #expect(receiver.received.map(\.path) == ["/hook"])
                #expect(delivery.attempts.map(\.statusCode) == [204])
            }
        }
    }

    /// An address that refuses the connection is skipped for the next one the name resolved to;
    /// a redirect is a failed attempt, never followed.
    @Test
    func aRefusedConnectionTriesTheNextAddressAndARedirectIsNotFollowed() async throws {
        var options = Self.localOptions
        // 127.0.0.2 answers nothing on the receiver's port (it listens on 127.0.0.1 only).
        options.resolve = { host in host == "receiver.test" ? ["127.0.0.2", "127.0.0.1"] : [] }
        try await Self.withRig(options: options) { rig in
            try await WebhookReceiver.with { receiver, base in
                let port = try #require(URL(string: base)?.port)
                let endpoint = try await rig.endpoint("http://receiver.test:\(port)/hook")
                receiver.script([.status(200), .status(307)])
                _ = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                let delivered = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivered.status == .delivered, "\(delivered.lastError ?? "")")
                _ = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                let redirected = try #require(await rig.dispatcher.deliverDue().first)
                #expect(redirected.status == .pending)
                #expect(redirected.lastError == "answered 307")
                #expect(receiver.received.count == 2)
            }
        }
    }

    @Test
    func theSystemResolverFindsLocalhostsAddresses() async {
        let addresses = await HostAddresses.resolve("localhost")
        #expect(addresses.contains("127.0.0.1") || addresses.contains("::1"), "\(addresses)")
    }

    @Test
    func aDeliveryFailsForGoodAfterTheLastAttemptAndCanBeRedelivered() async throws {
        var options = Self.localOptions
        options.maximumAttempts = 2
        try await Self.withRig(options: options) { rig in
            try await WebhookReceiver.with { receiver, base in
                let endpoint = try await rig.endpoint(base)
                receiver.script([.status(500), .status(410)])
                let ping = try await rig.administration.ping(id: endpoint.id, actor: "tester")
                _ = await rig.dispatcher.deliverDue()
                rig.seconds.advance(by: 100)
                let failed = try #require(await rig.dispatcher.deliverDue().first)
                #expect(failed.status == .failed)
                #expect(failed.nextAttemptAt == nil)
                rig.seconds.advance(by: 100_000)
                #expect(await rig.dispatcher.deliverDue().isEmpty)

                let again = try await rig.administration.redeliver(id: endpoint.id, delivery: ping.id)
                #expect(again.status == .pending)
                #expect(again.attemptCount == 0)
                let delivered = try #require(await rig.dispatcher.deliverDue().first)
                #expect(delivered.status == .delivered)
                #expect(delivered.attempts.map(\.statusCode) == [500, 410, 204])
                #expect(receiver.received.count == 3)
                #expect(Set(receiver.received.compactMap { $0.headers["webhook-id"] }) == [ping.id])
                // Another endpoint's delivery id is not found under this one.
                let other = try await rig.endpoint(base + "/other")
                await #expect(throws: AdminError.self) { try await rig.administration.redeliver(id: other.id, delivery: ping.id) }
            }
        }
    }

    @Test
    func kindsEnvironmentsAndDisabledEndpointsFilterWhatIsStored() async throws {
        try await Self.withRig { rig in
            let all = try await rig.endpoint("https://all.example.com/hook")
            let kills = try await rig.endpoint("https://kills.example.com/hook", kinds: ["flag.kill_switch"])
            let staging = try await rig.endpoint("https://staging.example.com/hook", environments: ["staging"])
            let disabled = try await rig.endpoint("https://off.example.com/hook", enabled: false)
            try await rig.write(rig.flag("checkout"))
            var stored = await rig.dispatcher.drain()
            #expect(stored.filter { $0.endpoint == all.id }.count == 3)
            #expect(stored.filter { $0.endpoint == staging.id }.count == 1)
            #expect(!stored.contains { $0.endpoint == kills.id || $0.endpoint == disabled.id })

            let store = try #require(rig.server.admin.store as? any ApprovalStore)
            let approvals = Approvals(admin: rig.server.admin, store: store, now: { rig.now })
            _ = try await approvals.kill(flag: "checkout", environment: "production", reason: "incident", actor: "oncall")
            stored = await rig.dispatcher.drain()
            // The kill switch is a committed write (flag.changed) and a kill switch of its own.
            #expect(stored.filter { $0.endpoint == all.id }.map(\.kind).sorted() == ["flag.changed", "flag.kill_switch"])
            #expect(stored.filter { $0.endpoint == kills.id }.map(\.kind) == ["flag.kill_switch"])
            #expect(!stored.contains { $0.endpoint == staging.id || $0.endpoint == disabled.id })

            // A disabled endpoint takes no ping; a deleted one takes its deliveries with it.
            await #expect(throws: AdminError.self) { try await rig.administration.ping(id: disabled.id, actor: "tester") }
            try await rig.administration.delete(id: all.id, actor: "tester", reason: nil)
            #expect(try await rig.store.webhookDeliveries(endpoint: all.id, limit: 100).isEmpty)
            #expect(try await rig.store.webhookDeliveries(endpoint: kills.id, limit: 100).count == 1)
        }
    }

    @Test
    func secretsAppearInNoLogAuditOrEncoding() async throws {
        try await Self.withRig { rig in
            try await WebhookReceiver.with { receiver, base in
                receiver.script([.status(500)])
                let created = try await rig.endpoint(base + "/hooks")
                let rotated = try await rig.administration.rotateSecret(id: created.id, actor: "tester")
                #expect(rotated.secret != created.secret)
                #expect(rotated.secret.text.hasPrefix("whsec_") && rotated.secret.text.count == 70)
                try await rig.write(rig.flag("checkout"))
                await rig.dispatcher.drain()
                await rig.dispatcher.deliverDue()
                let secrets = [created.secret.text, rotated.secret.text]
                let audit = try await rig.server.admin.store.audit(environment: AuditEntry.accountsEnvironment, key: created.id, limit: 10)
                #expect(audit.map(\.subject) == [.webhook, .webhook])
                let log = try await rig.store.webhookDeliveries(endpoint: created.id, limit: 10)
                let texts = [
                    rig.logs.text, "\(audit)", JSONValue(encoding: rotated).serialized(), "\(rotated)", "\(rotated.secret)", "\(log)",
                ]
                for text in texts {
                    for secret in secrets { #expect(!text.contains(secret)) }
                }
                #expect(!rig.logs.text.isEmpty)
                #expect("\(rotated.secret)" == "<REDACTED>")
                // The stored secret is the one that signs.
                #expect(try await rig.store.webhookEndpoint(id: created.id)?.secret == rotated.secret)
            }
        }
    }

    @Test
    func urlsOutsideTheRulesAreRefused() {
        let strict = WebhookOptions()
        for url in [
            "ftp://hooks.example.com/x", "hooks.example.com", "http://", "http://user:pass@hooks.example.com/x",
            "http://127.0.0.1:9000/x", "http://localhost/x", "http://localhost./x", "http://[::1]/x", "http://169.254.169.254/latest/meta-data",
            "http://0.0.0.0/x", "https://app.localhost/x", "http://[fe80::1]/x", "http://[::ffff:127.0.0.1]/x",
            "http://10.0.0.5:8080/hook", "https://[2001:db8::1]/x", "http://127.0.0.%31/x",
            "https://hooks.example.com/x#part", "https://hooks.example.com/" + String(repeating: "a", count: 2100),
        ] {
            #expect(strict.problem(url: url)?.hasPrefix("url: ") == true, "\(url)")
        }
        for url in ["https://hooks.example.com/flags?x=1", "http://93.184.215.14:8080/hook", "https://[2606:4700:4700::1111]/x", "HTTPS://Hooks.Example.com"] {
            #expect(strict.problem(url: url) == nil, "\(url)")
        }
        #expect(Self.localOptions.problem(url: "http://127.0.0.1:9000/x") == nil)
        #expect(Self.localOptions.problem(url: "http://127.1:9000/x") == nil)
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aClaimedDeliveryIsLeasedToOneServer(_ kind: StoreKind) async throws {
        try await Self.withRig(kind) { rig in
            let endpoint = try await rig.endpoint("https://hooks.example.com/x")
            var deliveries: [WebhookDelivery] = []
            for index in 0..<20 {
                deliveries.append(WebhookDelivery(endpoint: endpoint.id, kind: "ping", body: "{\"n\": \(index)}", at: rig.now))
            }
            try await rig.store.insertWebhookDeliveries(deliveries)
            let time = rig.now
            let other = try await rig.endpoint("https://other.example.com/x")
            try await rig.store.insertWebhookDeliveries([WebhookDelivery(endpoint: other.id, kind: "ping", body: "{}", at: rig.now)])
            #expect(Set(try await rig.store.endpointsWithDueWebhookDeliveries(at: time)) == [endpoint.id, other.id])
            #expect(try await rig.store.endpointsWithDueWebhookDeliveries(at: time - 1).isEmpty)
            // Two servers claiming at once take disjoint deliveries, of the endpoint named only.
            async let first = rig.store.claimWebhookDeliveries(endpoint: endpoint.id, dueAt: time, leaseUntil: time + 120, limit: 12)
            async let second = rig.store.claimWebhookDeliveries(endpoint: endpoint.id, dueAt: time, leaseUntil: time + 120, limit: 12)
            let (a, b) = try await (first, second)
            #expect(a.count + b.count == 20)
            #expect(Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
            #expect(try await rig.store.claimWebhookDeliveries(endpoint: endpoint.id, dueAt: time + 60, leaseUntil: time + 180, limit: 50).isEmpty)
            #expect(try await rig.store.endpointsWithDueWebhookDeliveries(at: time + 60) == [other.id])
            // A server that claimed and stopped: the lease runs out and another takes them.
            #expect(try await rig.store.claimWebhookDeliveries(endpoint: endpoint.id, dueAt: time + 121, leaseUntil: time + 241, limit: 50).count == 20)
            #expect(try await rig.store.claimWebhookDeliveries(endpoint: other.id, dueAt: time, leaseUntil: time + 120, limit: 50).count == 1)
        }
    }

    @Test
    func withoutDispatchNothingIsQueuedButEndpointsCanBeManaged() async throws {
        try await WebhookReceiver.with { receiver, base in
            try await TestServer.with(webhooks: nil) { server in
                #expect(server.server.webhooks == nil)
                #expect(server.server.admin.notifications is DiscardingNotificationSink)
                // Managing endpoints still works (against the strict URL rules: local URLs refused).
                let refused = try await server.request(.POST, "/admin/v1/webhooks", token: server.adminToken, body: #"{"url": "\#(base)"}"#)
                #expect(refused.status == 400)
                let created = try await server.request(
                    .POST, "/admin/v1/webhooks", token: server.adminToken, body: #"{"url": "https://hooks.example.com/x"}"#)
                #expect(created.status == 201)
                try await server.booleanFlag("checkout")
                let id = try #require(created.json?["id"]?.stringValue)
                let log = try await server.request(.GET, "/admin/v1/webhooks/\(id)/deliveries", token: server.adminToken)
                #expect(log.json?.arrayValue?.isEmpty == true)
                #expect(receiver.received.isEmpty)
            }
        }
    }

    /// Runs `scripts/tools/verify_webhook.py`: its exit status and output.
    static func verify(secret: String, header: String, body: String, now: Int) throws -> (Int32, String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/tools/verify_webhook.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, secret, header, String(now)]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        input.fileHandleForWriting.write(Data(body.utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
