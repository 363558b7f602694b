import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Synchronization
import Testing

/// Scheduled changes on both stores (Server/Docs/ScheduledChanges.md): the executor is driven by
/// hand (``ScheduledChangeExecutor/sweep()``) with a clock the tests move.
struct ScheduledChangeTests {
    /// A flag store that keeps scheduled changes.
    typealias Store = any FlagStore & ScheduleStore & ApprovalStore

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// One server over a store: its admin, scheduled changes and executor, on `clock`.
    struct Server {
        let store: Store
        let admin: FlagAdmin
        let schedules: Schedules
        let executor: ScheduledChangeExecutor
        let sink: RecordingSink

        init(store: Store, clock: ManualSeconds, grace: TimeInterval = 3600, name: String = "one") async throws {
            let now: @Sendable () -> Date = { ScheduledChangeTests.start.addingTimeInterval(clock.value) }
            self.store = store
            sink = RecordingSink()
            admin = FlagAdmin(store: store, publisher: StatePublisher(ttlSeconds: 60), events: EventHub(), now: now,
                writeTimeout: ServerLimits.forTests.writeTimeout, notifications: sink)
            try await store.migrate()
            try await admin.reload()
            schedules = Schedules(admin: admin, store: store, now: now)
            executor = ScheduledChangeExecutor(admin: admin, store: store, grace: grace, server: name, now: now)
        }

        /// Creates `production` and the Boolean flags `keys` (off there), if missing.
        func flags(_ keys: [String]) async throws {
            try await admin.write(actor: "test", reason: nil) { state in
                (state.environments["production"] == nil ? [.createEnvironment("production")] : [])
                    + keys.filter { state.flags[$0] == nil }.map {
                        .putFlag(
                            FlagRecord(key: $0, type: .boolean, variants: ["on": true, "off": false]),
                            initialSettings: FlagSettings(enabled: false, defaultVariant: "on"))
                    }
            }
        }

        func settings(_ key: String) async -> FlagSettings? { await admin.state.environments["production"]?.settings[key] }

        /// Schedules turning `key` on at `seconds` on the test clock.
        func turnOn(_ key: String, at seconds: Double, reason: String = "launch") async throws -> ScheduledChange {
            try await schedules.create(
                environment: "production", flag: key,
                draft: .init(change: .init(patch: ["enabled": true]), runAt: ScheduledChangeTests.start.addingTimeInterval(seconds), reason: reason),
                actor: "token ann")
        }
    }

    /// Records what it is told.
    final class RecordingSink: NotificationSink {
        let received = Mutex<[ServerNotification]>([])
        func notify(_ notification: ServerNotification) { received.withLock { $0.append(notification) } }
        /// What it was told of schedules: every committed write also sends `flag.changed`
        /// (Webhooks.md), counted by ``flagChanges``.
        var kinds: [ServerNotification.Kind] { received.withLock { $0.map(\.kind).filter { $0 != .flagChanged } } }
        var flagChanges: Int { received.withLock { $0.filter { $0.kind == .flagChanged }.count } }
    }

    static func makeStore(_ kind: StoreKind) async throws -> Store {
        try await kind.makeFlagStore()
    }

    /// Someone changes `checkout` directly.
    static func moveCheckout(_ server: Server) async throws {
        try await server.admin.write(actor: "bob", reason: nil) { state throws(AdminError) in
            guard var settings = state.environments["production"]?.settings["checkout"] else { throw .notFound("checkout") }
            settings.defaultVariant = "off"
            return [.putSettings(environment: "production", flag: "checkout", settings)]
        }
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func theStoreKeepsListsAndComparesVersions(_ kind: StoreKind) async throws {
        let store = try await Self.makeStore(kind)
        try await store.migrate()
        func change(_ id: String, _ flag: String, _ seconds: Double, environment: String = "production") -> ScheduledChange {
            ScheduledChange(
                id: id, environment: environment, flag: flag, change: .init(patch: ["enabled": true]),
                runAt: Self.start.addingTimeInterval(seconds), basedOnRevision: 3, actor: "ann", reason: "r", createdAt: Self.start)
        }
        try await store.insertSchedule(change("b", "checkout", 200), audit: nil)
        try await store.insertSchedule(change("a", "checkout", 100), audit: nil)
        try await store.insertSchedule(change("c", "search", 300), audit: nil)
        try await store.insertSchedule(change("d", "search", 50, environment: "staging"), audit: nil)
        await #expect(throws: StoreError.self) { try await store.insertSchedule(change("a", "checkout", 1), audit: nil) }
        #expect(try await store.schedule(id: "a") == change("a", "checkout", 100))
        #expect(try await store.schedule(id: "zz") == nil)
        #expect(try await store.schedules(environment: "production", flag: nil, from: nil, to: nil, limit: 10).map(\.id) == ["a", "b", "c"])
        #expect(try await store.schedules(environment: "production", flag: "checkout", from: nil, to: nil, limit: 10).map(\.id) == ["a", "b"])
        #expect(
            try await store.schedules(
                environment: "production", flag: nil, from: Self.start.addingTimeInterval(100), to: Self.start.addingTimeInterval(300),
                limit: 10
            ).map(\.id) == ["a", "b"])
        #expect(try await store.schedules(environment: "production", flag: nil, from: nil, to: nil, limit: 1).map(\.id) == ["a"])
        #expect(try await store.dueSchedules(at: Self.start.addingTimeInterval(200), limit: 10).map(\.id) == ["d", "a", "b"])
        #expect(try await store.nextScheduleTime() == Self.start.addingTimeInterval(50))

        var cancelled = change("d", "search", 50, environment: "staging")
        cancelled.status = .cancelled
        cancelled.version = 2
        try await store.updateSchedule(cancelled, audit: nil)
        #expect(try await store.schedule(id: "d")?.status == .cancelled)
        #expect(try await store.dueSchedules(at: Self.start.addingTimeInterval(200), limit: 10).map(\.id) == ["a", "b"])
        #expect(try await store.nextScheduleTime() == Self.start.addingTimeInterval(100))
        // The same version again: a conflict, the stored one kept.
        var again = cancelled
        again.status = .pending
        await #expect(throws: StoreError.conflict("scheduled change \"d\" changed meanwhile; read it again")) {
            try await store.updateSchedule(again, audit: nil)
        }
        #expect(try await store.schedule(id: "d")?.status == .cancelled)
        var ghost = change("ghost", "x", 1)
        ghost.version = 2
        await #expect(throws: StoreError.self) { try await store.updateSchedule(ghost, audit: nil) }
        await store.close()
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aChangeRunsOnceAtItsTimeAndIsAudited(_ kind: StoreKind) async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(kind), clock: clock)
        try await server.flags(["checkout"])
        let scheduled = try await server.turnOn("checkout", at: 60)
        #expect(scheduled.status == .pending)
        #expect(scheduled.basedOnRevision == (try await Schedules.revision(of: "checkout", in: "production", store: server.store)))

        clock.advance(by: 59)
        #expect(await server.executor.sweep().isEmpty)
        #expect(await server.settings("checkout")?.enabled == false)
        clock.advance(by: 1)
        let settled = await server.executor.sweep()
        #expect(settled.map(\.id) == [scheduled.id])
        #expect(settled.first?.status == .ran)
        #expect(settled.first?.revision == 2)
        #expect(settled.first?.claimedBy == nil)
        #expect(await server.settings("checkout")?.enabled == true)
        #expect(await server.executor.sweep().isEmpty)
        #expect(try await server.store.schedule(id: scheduled.id)?.status == .ran)

        let audit = try await server.store.audit(environment: "production", key: nil, limit: 20)
        let write = try #require(audit.first { $0.subject == .flag && $0.key == "checkout" && $0.revision == 2 })
        #expect(write.actor == "scheduler")
        #expect(write.reason == "scheduled change \(scheduled.id): launch")
        let steps = audit.filter { $0.subject == .schedule && $0.key == scheduled.id }
        #expect(steps.map { $0.after?["status"] } == ["ran", "pending"])
        #expect(steps.last?.actor == "token ann")
        #expect(server.sink.kinds == [.scheduleCreated, .scheduleRan])
        // The setup's write and the run's.
        #expect(server.sink.flagChanges == 2)

        // Ran: no longer editable or cancellable.
        let edit = Schedules.Draft(change: .init(patch: ["enabled": false]), runAt: Self.start.addingTimeInterval(600), reason: "off")
        await #expect(throws: AdminError.conflict("scheduled change \"\(scheduled.id)\" is ran: only a pending change can be edited or cancelled")) {
            try await server.schedules.edit(id: scheduled.id, environment: "production", flag: "checkout", draft: edit, actor: "ann")
        }
        await #expect(throws: AdminError.self) {
            try await server.schedules.cancel(id: scheduled.id, environment: "production", reason: nil, actor: "ann")
        }
        await server.store.close()
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func aChangeWhoseFlagMovedIsHeldAndReported(_ kind: StoreKind) async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(kind), clock: clock)
        try await server.flags(["checkout"])
        let scheduled = try await server.turnOn("checkout", at: 60)
        // Someone changes the flag after it was scheduled.
        try await Self.moveCheckout(server)
        clock.advance(by: 60)
        let settled = await server.executor.sweep()
        #expect(settled.first?.status == .held)
        #expect(settled.first?.outcome?.contains("changed at revision 2") == true)
        #expect(await server.settings("checkout")?.enabled == false)
        #expect(await server.admin.state.environments["production"]?.revision == 2)
        #expect(server.sink.kinds == [.scheduleCreated, .scheduleHeld])
        #expect(try await server.store.schedule(id: scheduled.id)?.status == .held)
        await server.store.close()
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func editingRebasesAndCancellingKeepsTheChange(_ kind: StoreKind) async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(kind), clock: clock)
        try await server.flags(["checkout", "search"])
        let scheduled = try await server.turnOn("checkout", at: 60)
        try await Self.moveCheckout(server)
        // Edited on the current state: based on the new revision, so it runs.
        let draft = Schedules.Draft(change: .init(patch: ["enabled": true]), runAt: Self.start.addingTimeInterval(120), reason: "later")
        await #expect(throws: AdminError.self) {
            try await server.schedules.edit(id: scheduled.id, environment: "production", flag: "checkout", draft: draft, version: 7, actor: "ann")
        }
        let edited = try await server.schedules.edit(id: scheduled.id, environment: "production", flag: "checkout", draft: draft, actor: "ann")
        #expect(edited.basedOnRevision == 2)
        #expect(edited.version == 2)
        // A stale basedOnRevision is refused when scheduling.
        let stale = Schedules.Draft(change: .init(patch: ["enabled": true]), runAt: Self.start.addingTimeInterval(120), reason: "x", basedOnRevision: 1)
        await #expect(throws: AdminError.self) {
            try await server.schedules.create(environment: "production", flag: "checkout", draft: stale, actor: "ann")
        }
        // Bad drafts: in the past, no change, two forms, nothing changed.
        for bad in [
            Schedules.Draft(change: .init(patch: ["enabled": true]), runAt: Self.start, reason: "now"),
            Schedules.Draft(change: .init(), runAt: Self.start.addingTimeInterval(10), reason: "none"),
            Schedules.Draft(change: .init(patch: ["enabled": true], definition: [:]), runAt: Self.start.addingTimeInterval(10), reason: "two"),
            Schedules.Draft(change: .init(patch: ["enabled": false]), runAt: Self.start.addingTimeInterval(10), reason: "same"),
            Schedules.Draft(change: .init(patch: ["enabled": true]), runAt: Self.start.addingTimeInterval(10), reason: " "),
        ] {
            await #expect(throws: AdminError.self) {
                try await server.schedules.create(environment: "production", flag: "search", draft: bad, actor: "ann")
            }
        }
        let other = try await server.turnOn("search", at: 90)
        let cancelled = try await server.schedules.cancel(id: other.id, environment: "production", reason: "not yet", actor: "ann")
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.outcome == "cancelled by ann: not yet")
        clock.advance(by: 200)
        let settled = await server.executor.sweep()
        #expect(settled.map(\.id) == [scheduled.id])
        #expect(settled.first?.status == .ran)
        #expect(await server.settings("search")?.enabled == false)
        let listed = try await server.schedules.list(environment: "production")
        #expect(Set(listed.map(\.status)) == [.ran, .cancelled])
        #expect(server.sink.kinds == [.scheduleCreated, .scheduleUpdated, .scheduleCreated, .scheduleCancelled, .scheduleRan])
        await server.store.close()
    }

    @Test
    func afterARestartAChangeWithinTheGraceRunsAndOneBeyondItIsMissed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schedules-" + UUID().uuidString).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/flags.sqlite"
        let clock = ManualSeconds()
        let first = try await Server(store: try await StoreLocation.file(path).openFlagStore(), clock: clock)
        try await first.flags(["checkout", "search"])
        let late = try await first.turnOn("checkout", at: 60)
        let recent = try await first.turnOn("search", at: 5460)
        await first.store.close()

        // No server runs for two hours; then one starts.
        clock.advance(by: 60 + 7200)
        let second = try await Server(store: try await StoreLocation.file(path).openFlagStore(), clock: clock)
        #expect(try await second.store.schedule(id: late.id)?.status == .pending)
        let settled = await second.executor.sweep()
        #expect(settled.count == 2)
        let missed = try #require(settled.first { $0.id == late.id })
        #expect(missed.status == .missed)
        #expect(missed.outcome?.contains("more than the grace period of 3600 s") == true)
        #expect(settled.first { $0.id == recent.id }?.status == .ran)
        #expect(await second.settings("checkout")?.enabled == false)
        #expect(await second.settings("search")?.enabled == true)
        #expect(second.sink.kinds == [.scheduleMissed, .scheduleRan])
        await second.store.close()
    }

    @Test(arguments: [StoreKind.sqliteFile, .postgres])
    func twoExecutorsRunEveryChangeExactlyOnce(_ kind: StoreKind) async throws {
        let location = try kind.freshLocation(fileName: "f.sqlite")
        let clock = ManualSeconds()
        let one = try await Server(store: try await location.openFlagStore(), clock: clock, name: "one")
        let keys = (0..<12).map { "flag\($0)" }
        try await one.flags(keys)
        var ids: [String] = []
        for key in keys { ids.append(try await one.turnOn(key, at: 60).id) }
        // On SQLite (one server), two executors over one store still claim through its versions.
        let secondStore: Store
        if kind == .postgres { secondStore = try await location.openFlagStore() } else { secondStore = one.store }
        let two = try await Server(store: secondStore, clock: clock, name: "two")
        clock.advance(by: 60)
        async let first = one.executor.sweep()
        async let second = two.executor.sweep()
        let (a, b) = await (first, second)
        // On a busy machine a change's write can outlast the write timeout while the other
        // executor writes (each commit moves the revision it is based on): it is then left pending,
        // unclaimed, and the next sweep runs it. Still exactly once.
        var done = a + b
        for _ in 0..<3 where done.count < keys.count {
            done += await one.executor.sweep()
        }
        let settled = done.map(\.id)
        #expect(settled.count == keys.count, "one: \(a.count), two: \(b.count), later: \(done.count - a.count - b.count)")
        #expect(Set(settled) == Set(ids))
        #expect(done.allSatisfy { $0.status == .ran })
        try await one.admin.refresh()
        for key in keys {
            let writes = try await one.store.audit(environment: "production", key: key, limit: 20).filter {
                $0.subject == .flag && $0.actor == "scheduler"
            }
            #expect(writes.count == 1, "\(key)")
            #expect(await one.settings(key)?.enabled == true)
        }
        #expect(await one.executor.sweep().isEmpty)
        #expect(await two.executor.sweep().isEmpty)
        await one.store.close()
        if kind == .postgres { await two.store.close() }
    }

    @Test
    func aServerTakingOverAnExpiredClaimDoesNotRunTheChangeTwice() async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(.sqliteMemory), clock: clock)
        try await server.flags(["checkout", "search"])
        let ranBefore = try await server.turnOn("checkout", at: 60)
        let notRun = try await server.turnOn("search", at: 60)
        clock.advance(by: 60)
        // A server claimed both, committed the first change and stopped before recording it.
        for schedule in [ranBefore, notRun] {
            var claimed = schedule
            claimed.claimedBy = "gone"
            claimed.claimedUntil = Self.start.addingTimeInterval(90)
            claimed.version += 1
            try await server.store.updateSchedule(claimed, audit: nil)
        }
        let proposal = ranBefore.proposal
        try await server.admin.write(actor: "scheduler", reason: ranBefore.auditReason) { state throws(AdminError) in
            try proposal.changes(in: "production", of: state)
        }
        // Claimed: nobody else runs or edits them until the claim expires.
        #expect(await server.executor.sweep().isEmpty)
        await #expect(throws: AdminError.self) {
            try await server.schedules.cancel(id: notRun.id, environment: "production", reason: nil, actor: "ann")
        }
        clock.advance(by: 31)
        let settled = await server.executor.sweep()
        #expect(settled.first { $0.id == ranBefore.id }?.status == .ran)
        #expect(settled.first { $0.id == ranBefore.id }?.revision == 2)
        #expect(settled.first { $0.id == notRun.id }?.status == .ran)
        #expect(settled.first { $0.id == notRun.id }?.revision == 3)
        #expect(await server.admin.state.environments["production"]?.revision == 3)
        await server.store.close()
    }

    @Test(arguments: StoreKind.sqliteAndPostgres)
    func underARuleOnlyAnApprovedChangeRequestRunsAtItsTimeAndOnlyAtItsRevision(_ kind: StoreKind) async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(kind), clock: clock)
        try await server.flags(["checkout", "search"])
        let approvals = Approvals(admin: server.admin, store: server.store, now: { Self.start.addingTimeInterval(clock.value) })
        try await approvals.putRule(ApprovalRule(requiredApprovals: 1, appliesTo: [.settings]), environment: "production", actor: "test", reason: nil)
        // A direct schedule is refused where the rule covers the change.
        await #expect(throws: AdminError.self) { try await server.turnOn("checkout", at: 60) }
        let ann = ApprovalIdentity(kind: .user, name: "ann"), ben = ApprovalIdentity(kind: .token, name: "ben")
        let applyAt = Self.start.addingTimeInterval(60)
        var requests: [ChangeRequest] = []
        for key in ["checkout", "search"] {
            let opened = try await approvals.open(
                environment: "production", proposal: .init(flag: key, patch: ["enabled": true]), reason: "launch \(key)", applyAt: applyAt,
                by: ann)
            requests.append(try await approvals.approve(id: opened.id, environment: "production", by: ben, comment: nil))
        }
        // Not due yet: nothing scheduled.
        #expect(await server.executor.sweep().isEmpty)
        #expect(try await server.schedules.list(environment: "production").isEmpty)
        // `search` moves after the approval: its request is held, not applied.
        try await server.admin.write(actor: "ann", reason: nil, approval: .changeRequest("none")) { state throws(AdminError) in
            guard var settings = state.environments["production"]?.settings["search"] else { throw .notFound("search") }
            settings.defaultVariant = "off"
            return [.putSettings(environment: "production", flag: "search", settings)]
        }
        clock.advance(by: 60)
        let settled = await server.executor.sweep()
        #expect(settled.count == 2)
        let ran = try #require(settled.first { $0.flag == "checkout" })
        #expect(ran.status == .ran)
        #expect(ran.changeRequest == requests[0].id)
        #expect(await server.settings("checkout")?.enabled == true)
        #expect(try await approvals.changeRequest(id: requests[0].id, environment: "production").status == .applied)
        let held = try #require(settled.first { $0.flag == "search" })
        #expect(held.status == .held)
        #expect(held.outcome?.contains("approved again") == true)
        #expect(await server.settings("search")?.enabled == false)
        #expect(try await approvals.changeRequest(id: requests[1].id, environment: "production").status == .open)
        // Each request is scheduled once.
        #expect(await server.executor.sweep().isEmpty)
        #expect(try await server.schedules.list(environment: "production").count == 2)
        await server.store.close()
    }

    @Test
    func aRuleAddedAfterSchedulingMakesTheRunFail() async throws {
        let clock = ManualSeconds()
        let server = try await Server(store: try await Self.makeStore(.sqliteMemory), clock: clock)
        try await server.flags(["checkout"])
        let scheduled = try await server.turnOn("checkout", at: 60)
        let approvals = Approvals(admin: server.admin, store: server.store, now: { Self.start.addingTimeInterval(clock.value) })
        try await approvals.putRule(ApprovalRule(requiredApprovals: 1), environment: "production", actor: "test", reason: nil)
        clock.advance(by: 60)
        let settled = await server.executor.sweep()
        #expect(settled.map(\.id) == [scheduled.id])
        #expect(settled.first?.status == .failed)
        #expect(settled.first?.outcome?.contains("needs 1 approval") == true)
        #expect(await server.settings("checkout")?.enabled == false)
        #expect(server.sink.kinds == [.scheduleCreated, .scheduleFailed])
        #expect(await server.executor.sweep().isEmpty)
        await server.store.close()
    }
}
