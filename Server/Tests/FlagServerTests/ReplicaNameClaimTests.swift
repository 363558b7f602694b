@testable import FlagServer
import Foundation
import Logging
import Testing

/// A replica's name in rollout leases is kept beside its SQLite database across restarts
/// (`Server/Docs/Replicas.md`): a restarted process takes the name, and so the leases, of the
/// process it replaces, while two live processes on one database never share a name.
struct ReplicaNameClaimTests {
    @Test
    func aRestartedProcessActsOnThePlanItsPredecessorLeasedWhileAnotherLiveReplicasLeaseHolds() async throws {
        let database = TemporaryDirectory().path + "/flags.sqlite"
        let clock = ManualSeconds()
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: RolloutSimulationTests.base + clock.value) }
        try await TestServer.withConsole(now: now, rolloutTickInterval: nil) { server in
            try await server.booleanFlag("checkout", enabled: true, defaultVariant: "off")
            let rollouts = try #require(server.server.rollouts)
            let plan = RolloutGuardrailTests.plan()
            _ = try await rollouts.create(plan)
            _ = try await rollouts.start(id: plan.id, environment: "production", actor: "ada")

            // Two live processes on one database: each holds a name of its own.
            let predecessor = try ReplicaNameClaim.claim(besideDatabase: database)
            let other = try ReplicaNameClaim.claim(besideDatabase: database)
            #expect(predecessor.name != other.name && predecessor.file != other.file)

            // The predecessor was stepping the plan when it was killed: its lease is held, the step due.
            var leased = try await rollouts.plan(id: plan.id, environment: "production")
            leased.lease = .init(holder: predecessor.name, until: now().addingTimeInterval(86_400))
            try await rollouts.save(&leased)
            clock.advance(by: 3_000)

            // The other live replica leaves it to the lease's holder.
            let otherExecutor = RolloutExecutor(rollouts: rollouts, replica: other.name)
            #expect(await otherExecutor.tick()[plan.id] == .skipped)
            #expect(try await rollouts.plan(id: plan.id, environment: "production").currentStep == 0)

            // The predecessor's process ends (as a kill -9 ends it, its lock goes with it); its
            // restart takes its slot and name, and acts on the plan at its first tick.
            predecessor.release()
            let restarted = try ReplicaNameClaim.claim(besideDatabase: database)
            #expect(restarted.name == predecessor.name && restarted.file == predecessor.file)
            let executor = RolloutExecutor(rollouts: rollouts, replica: restarted.name)
            #expect(await executor.tick()[plan.id] == .stepped)
            let stepped = try await rollouts.plan(id: plan.id, environment: "production")
            #expect(stepped.currentStep == 1 && stepped.lease == nil)
            restarted.release()
            other.release()
        }
    }

    @Test
    func theServerClaimsItsNameBesideItsSQLiteFileAndNoneForAnInMemoryDatabase() async throws {
        let directory = TemporaryDirectory().path
        let store = try await SQLiteFlagStore(path: directory + "/flags.sqlite")
        let logger = Logger(label: "test")
        let claim = try #require(await RolloutReplicaService.claimName(store: store, logger: logger))
        #expect(claim.file.hasSuffix("/flags.sqlite.replica-0"))
        let kept = try String(contentsOfFile: claim.file, encoding: .utf8)
        #expect(kept == claim.name + "\n")
        claim.release()
        // The name is kept: the next claim (the next process) reads it back.
        let again = try #require(await RolloutReplicaService.claimName(store: store, logger: logger))
        #expect(again.name == claim.name)
        again.release()
        await store.close()

        let memory = try await SQLiteFlagStore(path: nil)
        #expect(await RolloutReplicaService.claimName(store: memory, logger: logger) == nil)
        await memory.close()
    }

    @Test
    func aSlotFileThatHoldsNoNameGetsANewOne() throws {
        let database = TemporaryDirectory().path + "/flags.sqlite"
        try Data("not a name\u{0}\n".utf8).write(to: URL(fileURLWithPath: database + ".replica-0"))
        let claim = try ReplicaNameClaim.claim(besideDatabase: database)
        #expect(claim.name.hasPrefix("replica-"))
        #expect(try String(contentsOfFile: claim.file, encoding: .utf8) == claim.name + "\n")
        claim.release()
    }
}
