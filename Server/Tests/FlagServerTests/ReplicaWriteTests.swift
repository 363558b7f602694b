import FlagEvaluation
import FlagServer
import Foundation
import Testing

/// Two servers (replicas) writing to one database never lose each other's write.
struct ReplicaWriteTests {
    @Test
    func aReplicaWritingOnAStaleStateReloadsAndKeepsTheOtherWrite() async throws {
        let path = TemporaryDirectory().path + "/flags.sqlite"
        let storeA = try await SQLiteFlagStore(path: path)
        let storeB = try await SQLiteFlagStore(path: path)
        let (a, _) = try await FlagServer.start(store: storeA, configuration: .init(limits: .forTests))
        let (b, _) = try await FlagServer.start(store: storeB, configuration: .init(limits: .forTests))
        let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        let search = FlagRecord(key: "search", type: .boolean, variants: ["on": true, "off": false])
        let off = FlagSettings(enabled: false, defaultVariant: "off")

        // B loaded its state before A's write: its next write is based on stale revisions.
        try await a.admin.write(actor: "a", reason: nil) { _ in [.putFlag(flag, initialSettings: off)] }
        try await b.admin.write(actor: "b", reason: nil) { _ in [.putFlag(search, initialSettings: off)] }

        let stored = try await storeA.load()
        #expect(stored.flags.keys.sorted() == ["checkout", "search"])
        #expect(stored.environments["production"]?.revision == 3)
        #expect(await b.admin.state == stored)
        let history = try await storeA.revisions(environment: "production", limit: 10)
        #expect(history.map(\.actor) == ["b", "a", "flag-server (first start)"])
        await storeA.close()
        await storeB.close()
    }
}
