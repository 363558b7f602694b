@testable import FlagServer
import Foundation
import Logging
import Synchronization
import Testing

/// Replicas sharing a database act on rollout plans only while they lead (``RolloutLeadership``):
/// a follower reads nothing, the leader takes over the lease a replica that no longer leads left
/// behind, and a replica that loses the leadership in the middle of a step writes nothing more.
struct RolloutLeadershipTests {
    /// A leadership answering ``confirm()`` from a script, then with `afterwards`.
    final class ScriptedLeadership: RolloutLeadership {
        private let state: Mutex<(answers: [Bool], afterwards: Bool, asked: Int)>

        init(_ answers: [Bool] = [], afterwards: Bool) {
            state = Mutex((answers, afterwards, 0))
        }

        func confirm() async -> Bool {
            state.withLock { state in
                state.asked += 1
                return state.answers.isEmpty ? state.afterwards : state.answers.removeFirst()
            }
        }

        func resign() async {}

        var asked: Int { state.withLock { $0.asked } }
    }

    @Test
    func aFollowerLeavesADuePlanAloneAndTheLeaderTakesOverTheLeaseAReplicaThatNoLongerLeadsLeft() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: RolloutSimulationTests.base + clock.value) }
        try await TestServer.withConsole(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let plan = RolloutGuardrailTests.plan()
            _ = try await rollouts.create(plan)
            _ = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")

            // The replica that led was killed in the middle of a step: its lease holds for a day.
            var leased = try await rollouts.plan(id: plan.id, environment: "production")
            leased.lease = .init(holder: "killed-replica", until: now().addingTimeInterval(86_400))
            try await rollouts.save(&leased)
            clock.advance(by: 3_000)
            let version = try await rollouts.plan(id: plan.id, environment: "production").version

            // A replica that does not lead reads and writes nothing, although the step is due.
            let follower = RolloutExecutor(rollouts: rollouts, replica: "follower", leadership: ScriptedLeadership(afterwards: false))
            #expect(await follower.tick().isEmpty)
            #expect(try await rollouts.plan(id: plan.id, environment: "production").version == version)

            // Without a leadership the dead replica's lease holds (the SQLite and in-memory case).
            let unled = RolloutExecutor(rollouts: rollouts, replica: "unled")
            #expect(await unled.tick()[plan.id] == .skipped)

            // The leader takes the plan over at its first tick.
            let leader = RolloutExecutor(rollouts: rollouts, replica: "leader", leadership: ScriptedLeadership(afterwards: true))
            #expect(await leader.tick()[plan.id] == .stepped)
            let stepped = try await rollouts.plan(id: plan.id, environment: "production")
            #expect(stepped.currentStep == 1 && stepped.lease == nil)
            #expect(stepped.history.last?.action == .stepped && stepped.history.last?.step == 1)
        }
    }

    @Test
    func aReplicaThatLosesTheLeadershipWhileItEvaluatesWritesNeitherTheStepNorTheEvaluation() async throws {
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: RolloutSimulationTests.base + clock.value) }
        try await TestServer.withConsole(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let plan = RolloutGuardrailTests.plan()
            _ = try await rollouts.create(plan)
            _ = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")
            clock.advance(by: 3_000)
            let before = try await rollouts.plan(id: plan.id, environment: "production")

            // Leads for the tick and for the lease, then no more once the evaluation is done.
            let cutOff = ScriptedLeadership([true, true], afterwards: false)
            let losing = RolloutExecutor(rollouts: rollouts, replica: "cut-off", leadership: cutOff)
            #expect(await losing.tick()[plan.id] == .skipped)
            #expect(cutOff.asked == 3)
            let left = try await rollouts.plan(id: plan.id, environment: "production")
            #expect(left.currentStep == 0 && left.history.count == before.history.count && left.lastEvaluatedAt == before.lastEvaluatedAt)
            #expect(left.lease?.holder == "cut-off")

            // The next leader takes the lease over and steps.
            let next = RolloutExecutor(rollouts: rollouts, replica: "next", leadership: ScriptedLeadership(afterwards: true))
            #expect(await next.tick()[plan.id] == .stepped)
            #expect(try await rollouts.plan(id: plan.id, environment: "production").currentStep == 1)
        }
    }
}

/// ``PostgresRolloutLeadership`` against a real PostgreSQL: one replica leads per schema; a
/// leader whose connection ends (as a kill -9 ends it) frees the lock for the next at once, and
/// itself stops leading.
@Suite(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL"))
struct PostgresRolloutLeadershipTests {
    @Test
    func oneReplicaLeadsAndALeaderWhoseConnectionEndsLeavesTheLeadershipToTheNext() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let first = try PostgresTestDatabase.makeStore(schema: schema)
        let second = try PostgresTestDatabase.makeStore(schema: schema)
        let elsewhere = try PostgresTestDatabase.makeStore()
        let logger = Logger(label: "test.rollout-leadership")
        let a = try first.rolloutLeadership(logger: logger)
        let b = try second.rolloutLeadership(logger: logger)
        let c = try elsewhere.rolloutLeadership(logger: logger)
        #expect(a.key == b.key && a.key != c.key)

        #expect(await a.confirm())
        #expect(await a.confirm())
        #expect(await !b.confirm())
        // Another schema is another set of replicas, with a leader of its own.
        #expect(await c.confirm())

        // The leader's backend ends, as it does when the kernel closes a killed process's socket.
        let bits = UInt64(bitPattern: a.key)
        let holders = try await PostgresTestDatabase.query(
            "SELECT pid::text FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = \(bits >> 32) AND objid = \(bits & 0xFFFF_FFFF) AND objsubid = 1")
        #expect(holders.count == 1)
        for pid in holders {
            // Returns once the backend has exited (the bound only keeps a stuck server from hanging the suite).
            try await PostgresTestDatabase.query("SELECT pg_terminate_backend(\(pid), 60000)::text")
        }
        // The next replica to ask leads; the old leader finds its hold gone and does not.
        #expect(await b.confirm())
        #expect(await !a.confirm())
        #expect(await !a.isLeading)

        // A leader that stops gives the leadership up.
        await b.resign()
        #expect(await a.confirm())
        await a.resign()
        await c.resign()
        for store in [first, second, elsewhere] { await store.close() }
    }

    /// A lock connection that stops answering (its backend stopped with SIGSTOP: the socket stays
    /// open, no reply comes) ends the leadership at the next check, which returns after its
    /// deadline instead of waiting for the reply, and closes the connection, so the lock is free
    /// for the next replica once PostgreSQL sees the session gone.
    @Test(.enabled(if: PostgresTestDatabase.control != nil, "needs the tests' own PostgreSQL (FLAG_SERVER_TEST_POSTGRES_CONTROL), whose backends it stops"))
    func aLeaderWhoseLockConnectionStopsAnsweringStopsLeadingAtItsNextCheck() async throws {
        let schema = PostgresTestDatabase.freshSchema()
        let first = try PostgresTestDatabase.makeStore(schema: schema)
        let second = try PostgresTestDatabase.makeStore(schema: schema)
        let logger = Logger(label: "test.rollout-leadership")
        let key = try first.rolloutLeadership(logger: logger).key
        let a = PostgresRolloutLeadership(
            configuration: try first.listeningConfiguration(), key: key, checkTimeout: .milliseconds(500), logger: logger)
        let b = try second.rolloutLeadership(logger: logger)
        #expect(await a.confirm())
        let bits = UInt64(bitPattern: key)
        let holders = try await PostgresTestDatabase.query(
            "SELECT pid::text FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = \(bits >> 32) AND objid = \(bits & 0xFFFF_FFFF) AND objsubid = 1")
        let pid = try #require(holders.first.flatMap { pid_t($0) })
        #expect(kill(pid, SIGSTOP) == 0, "the test cannot stop PostgreSQL's backend \(pid) (errno \(errno))")
        // The check's query gets no answer while the backend is stopped: the check ends at its
        // deadline, and with it the leadership.
        let answered = await a.confirm()
        let leading = await a.isLeading
        kill(pid, SIGCONT)
        #expect(!answered && !leading)
        // Woken, the backend finds its client gone and ends (terminated here, so as not to wait
        // for it): the lock is the next replica's.
        try await PostgresTestDatabase.query("SELECT pg_terminate_backend(\(pid), 60000)::text")
        #expect(await b.confirm())
        #expect(await !a.confirm())
        await a.resign()
        await b.resign()
        for store in [first, second] { await store.close() }
    }
}
