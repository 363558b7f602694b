import FlagEvaluation
import FlagServer
import Testing

struct FlagAdminTests {
    /// The admin and the store are actors, reentrant at every await: concurrent writes must still
    /// run one at a time (they once interleaved two transactions on one connection).
    @Test
    func concurrentWritesAllCommitAsSeparateRevisions() async throws {
        let store = try await SQLiteFlagStore(path: TemporaryDirectory().path + "/flags.sqlite")
        let (server, _) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests))
        let off = FlagSettings(enabled: false, defaultVariant: "v")
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let flag = FlagRecord(key: "flag-\(index)", type: .integer, variants: ["v": .int(index)])
                    do {
                        try await server.admin.write(actor: "writer \(index)", reason: nil) { _ in
                            [.putFlag(flag, initialSettings: off)]
                        }
                        return true
                    } catch {
                        return false
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0 })
        let state = try await store.load()
        #expect(state.flags.count == 20)
        #expect(state.environments["production"]?.revision == 21)
        await store.close()
    }
}
