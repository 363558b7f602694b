@testable import FlagServer
import Foundation
import Testing

/// Which features a backend provides is the backend's own list (``StoreCapabilities``), not a cast
/// at each use: both shipped backends list every store, a store written for tests lists none.
struct StoreCapabilitiesTests {
    static func provided(_ capabilities: StoreCapabilities) -> [String] {
        [
            capabilities.approvals.map { _ in "approvals" }, capabilities.experiments.map { _ in "experiments" },
            capabilities.rollouts.map { _ in "rollouts" }, capabilities.schedules.map { _ in "schedules" },
            capabilities.webhooks.map { _ in "webhooks" }, capabilities.consoleAccounts.map { _ in "consoleAccounts" },
            capabilities.replicated.map { _ in "replicated" },
        ].compactMap { $0 }
    }

    static func provided(_ capabilities: EventStoreCapabilities) -> [String] {
        [
            capabilities.experimentResults.map { _ in "experimentResults" }, capabilities.sessionHealth.map { _ in "sessionHealth" },
            capabilities.rolloutEvents.map { _ in "rolloutEvents" }, capabilities.rolloutAttribution.map { _ in "rolloutAttribution" },
            capabilities.experimentSegments.map { _ in "experimentSegments" },
        ].compactMap { $0 }
    }

    static let everyFeature = ["approvals", "experiments", "rollouts", "schedules", "webhooks", "consoleAccounts"]
    static let everyReading = ["experimentResults", "sessionHealth", "rolloutEvents", "rolloutAttribution", "experimentSegments"]

    @Test
    func sqliteListsEveryFeatureButReplication() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        #expect(Self.provided(store.capabilities) == Self.everyFeature)
        let events = try await SQLiteFlagEventStore(path: nil)
        #expect(Self.provided(events.capabilities) == Self.everyReading)
        await events.close()
        await store.close()
    }

    @Test(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL"))
    func postgresListsEveryFeatureAndReplication() async throws {
        let store = try PostgresTestDatabase.makeStore()
        #expect(Self.provided(store.capabilities) == Self.everyFeature + ["replicated"])
        let events = try FlagEventStoreCompatibilityTests.location(.postgres)
        guard case .postgres(let configuration) = events else { Issue.record("not a PostgreSQL location"); return }
        let eventStore = PostgresFlagEventStore(configuration: configuration)
        #expect(Self.provided(eventStore.capabilities) == Self.everyReading)
        await eventStore.close()
        await store.close()
    }

    @Test
    func aStoreWrittenForTestsProvidesOnlyWhatItLists() async throws {
        let rows = FixedRowsEventStore()
        #expect(Self.provided(rows.capabilities).isEmpty)
        let results = ExperimentResultsEventStore(totals: ExperimentResultsEventStore.sample())
        #expect(Self.provided(results.capabilities) == ["experimentResults"])
    }
}
