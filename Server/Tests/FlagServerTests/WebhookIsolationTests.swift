@testable import FlagServer
import Foundation
import Testing

/// One endpoint's receiver that never answers does not hold back another endpoint's deliveries
/// (Server/Docs/Webhooks.md, "Delivery, retries and the log"): the service runs as in `serve`,
/// against two receivers on loopback.
struct WebhookIsolationTests {
    @Test
    func aHangingReceiverDoesNotHoldBackAHealthyOne() async throws {
        var options = WebhookDispatcherTests.localOptions
        // Far longer than the healthy receiver needs for all of its deliveries, also on a machine
        // busy with the whole suite (30 s was not, there): a hanging attempt ends (and is
        // recorded) only after it. Before per-endpoint delivery, the healthy receiver's later
        // deliveries waited for this in batches shared with the hanging one.
        options.requestTimeout = .seconds(600)
        options.pollInterval = .milliseconds(20)
        let count = 40
        try await WebhookDispatcherTests.withRig(options: options) { rig in
            try await WebhookReceiver.with { hanging, hangingBase in
                try await WebhookReceiver.with { healthy, healthyBase in
                    hanging.script(Array(repeating: .hang, count: count))
                    let stuck = try await rig.endpoint(hangingBase + "/stuck")
                    let fine = try await rig.endpoint(healthyBase + "/fine")
                    // Both endpoints' deliveries due together, interleaved, before the service starts.
                    for _ in 0..<count {
                        _ = try await rig.administration.ping(id: stuck.id, actor: "tester")
                        _ = try await rig.administration.ping(id: fine.id, actor: "tester")
                    }
                    let service = Task { try await rig.dispatcher.run() }
                    var arrivals = healthy.arrivals.makeAsyncIterator()
                    for _ in 0..<count { _ = await arrivals.next() }
                    // Every healthy delivery arrived while the hanging receiver has answered none
                    // and none of its attempts has ended.
                    #expect(healthy.received.count == count)
                    #expect(hanging.hangingCount > 0)
                    let stuckLog = try await rig.store.webhookDeliveries(endpoint: stuck.id, limit: 100)
                    #expect(stuckLog.count == count)
                    #expect(stuckLog.allSatisfy { $0.attemptCount == 0 }, "\(stuckLog.map(\.lastError))")
                    service.cancel()
                    _ = try? await service.value
                    // Shutting down mid-attempt records no failed attempt: the lease hands them on.
                    #expect(try await rig.store.webhookDeliveries(endpoint: stuck.id, limit: 100).allSatisfy { $0.attemptCount == 0 })
                    let fineLog = try await rig.store.webhookDeliveries(endpoint: fine.id, limit: 100)
                    #expect(fineLog.allSatisfy { $0.status == .delivered || $0.attemptCount == 0 })
                }
            }
        }
    }
}
