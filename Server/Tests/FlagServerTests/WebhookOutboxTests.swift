import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// A change's notifications are stored as deliveries before the change is answered, so that a
/// server killed right after the answer loses none (Server/Docs/Webhooks.md, "Delivery, retries
/// and the log"). The restart is simulated in the process: a new dispatcher over the same
/// database, the first one's memory abandoned.
struct WebhookOutboxTests {
    @Test
    func anAnsweredWritesNotificationsAreStoredBeforeTheAnswerAndSentAfterARestart() async throws {
        var options = WebhookDispatcherTests.localOptions
        // The service stores and sends nothing on its own during the test (its first round runs
        // at start, before the endpoint exists).
        options.pollInterval = .seconds(3600)
        try await WebhookReceiver.with { receiver, base in
            try await TestServer.with(webhooks: options) { server in
                let created = try await server.request(
                    .POST, "/admin/v1/webhooks", token: server.adminToken, body: #"{"url": "\#(base)/hooks", "kinds": ["flag.changed"]}"#)
                #expect(created.status == 201, "\(created.body)")
                let id = try #require(created.json?["id"]?.stringValue)
                let dispatcher = try #require(server.server.webhooks)
                let store = try #require(server.server.admin.store as? any WebhookStore)

                let reply = try await server.request(
                    .PUT, "/admin/v1/flags/checkout", token: server.adminToken,
                    body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#)
                #expect(reply.status == 200, "\(reply.body)")
                // Answered: nothing waits in memory, the three environments' deliveries are stored.
                #expect(dispatcher.queuedCount == 0)
                let stored = try await store.webhookDeliveries(endpoint: id, limit: 10)
                #expect(stored.count == 3)
                #expect(stored.allSatisfy { $0.kind == "flag.changed" && $0.status == .pending })
                #expect(receiver.received.isEmpty)

                // Killed now: another dispatcher on the same database sends them.
                let restarted = WebhookDispatcher(store: store, options: options)
                let sent = await restarted.deliverDue()
                #expect(sent.map(\.status) == [.delivered, .delivered, .delivered])
                #expect(Set(receiver.received.compactMap { $0.headers["webhook-id"] }) == Set(stored.map(\.id)))
                #expect(receiver.received.allSatisfy { $0.body.contains(#""flag":"checkout""#) })
            }
        }
    }

    /// A request waits for its own notifications only: what it queued is noted in the task it
    /// runs in (the write path's actor included), not what other requests queued meanwhile.
    @Test
    func aRequestNotesOnlyTheNotificationsItQueued() async throws {
        try await WebhookDispatcherTests.withRig { rig in
            let other = WebhookDispatcher.RequestNotifications()
            try await WebhookDispatcher.$queuedByRequest.withValue(other) { try await rig.write(rig.flag("elsewhere")) }
            let nothing = WebhookDispatcher.RequestNotifications()
            WebhookDispatcher.$queuedByRequest.withValue(nothing) {}
            #expect(nothing.last == nil)
            let request = WebhookDispatcher.RequestNotifications()
            try await WebhookDispatcher.$queuedByRequest.withValue(request) { try await rig.write(rig.flag("checkout")) }
            // Three notifications each (a new flag in three environments), the other's first.
            let (mine, others) = (try #require(request.last), try #require(other.last))
            #expect(mine == others + 3)
            await rig.dispatcher.persistQueued(through: mine)
            #expect(rig.dispatcher.queuedCount == 0)
        }
    }

    @Test
    func persistingStoresWhatWasQueuedBeforeIt() async throws {
        try await WebhookDispatcherTests.withRig { rig in
            // Nothing queued: returns at once (no store call needed).
            await rig.dispatcher.persistQueued()
            try await rig.write(rig.flag("checkout"))
            #expect(rig.dispatcher.queuedCount == 3)
            await rig.dispatcher.persistQueued()
            #expect(rig.dispatcher.queuedCount == 0)
            // A second call finds its notifications stored already.
            await rig.dispatcher.persistQueued()
            #expect(rig.dispatcher.queuedCount == 0)
        }
    }
}
