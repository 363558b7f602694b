import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import FlagStatistics
import Foundation
import Synchronization
import Testing

/// An experiment's lifecycle is announced (`experiment.started`, `.stopped`, `.shipped`, the kinds
/// webhooks offer) once the store holds each step, and a refused step announces nothing.
struct ExperimentNotificationTests {
    @Test
    func startingStoppingAndShippingAreAnnounced() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        // SQLiteNIO traps when a connection is released unclosed: closed on every way out.
        do {
            try await lifecycle(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func lifecycle(_ store: SQLiteFlagStore) async throws {
        let sink = ApprovalTests.RecordingSink()
        let admin = FlagAdmin(
            store: store, publisher: StatePublisher(ttlSeconds: 60), events: EventHub(),
            writeTimeout: ServerLimits.forTests.writeTimeout, notifications: sink)
        try await store.migrate()
        try await admin.reload()
        let split = try JSONValue(parsing: #"{"fractional": [["on", 50], ["off", 50]]}"#)
        try await admin.write(actor: "test", reason: nil) { _ in
            [.createEnvironment("production"),
             .putFlag(
                FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false]),
                initialSettings: FlagSettings(enabled: true, defaultVariant: "off", targeting: split))]
        }
        let experiments = Experiments(admin: admin, store: store, now: Date.init)
        _ = try await experiments.createMetric(ExperimentMetric(key: "buy", name: "Purchases", event: "purchase", kind: .conversion), actor: "test")
        _ = try await experiments.create(Experiment(
            id: "exp-1", environment: "production", flag: "checkout", control: "off", arms: ["off", "on"], metrics: ["buy"],
            createdAt: Date(), createdBy: "test"))
        func announced() -> [ServerNotification] { sink.received.withLock { $0.filter { $0.kind != .flagChanged } } }
        #expect(announced().isEmpty)

        _ = try await experiments.start(id: "exp-1", environment: "production", actor: "ann")
        // Started again: refused, and nothing is announced for it.
        await #expect(throws: AdminError.self) { try await experiments.start(id: "exp-1", environment: "production", actor: "ann") }
        _ = try await experiments.stop(id: "exp-1", environment: "production", actor: "ann", note: "enough data")
        let (_, revisions) = try await experiments.ship(id: "exp-1", environment: "production", arm: "on", actor: "ben", reason: "on wins")

        let received = announced()
        #expect(received.map(\.kind) == [.experimentStarted, .experimentStopped, .experimentShipped])
        try #require(received.count == 3)
        #expect(received.map(\.actor) == ["ann", "ann", "ben"])
        for notification in received {
            #expect(notification.environment == "production")
            #expect(notification.flag == "checkout")
            #expect(notification.details["experiment"] == "exp-1")
        }
        #expect(received.map { $0.details["status"] } == ["running", "stopped", "shipped"])
        #expect(received[2].details["arm"] == "on")
        #expect(received[2].revision == revisions["production"])
        #expect(received[2].revision != nil)
        #expect(received[0].summary == #"checkout: experiment "exp-1" started (arms off, on)"#)
        #expect(received[2].summary == #"checkout: experiment "exp-1" shipped with arm "on" (on wins)"#)
    }
}
