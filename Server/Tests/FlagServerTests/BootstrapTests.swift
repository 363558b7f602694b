@testable import FlagServer
import Foundation
import Testing

/// A first start stopped before it showed its secrets is finished by the next start.
struct BootstrapTests {
    struct Killed: Error {}

    @Test
    func aStartAfterAnUnfinishedFirstStartRevokesTheUnseenTokenAndIssuesANewOne() async throws {
        let path = TemporaryDirectory().path + "/flags.sqlite"
        // The first start dies after committing, before its secrets reach the operator.
        let first = try await SQLiteFlagStore(path: path)
        await #expect(throws: Killed.self) {
            _ = try await FlagServer.start(store: first, showBootstrap: { _ in throw Killed() })
        }
        let unseen = try await first.tokens()
        #expect(unseen.count == 1)
        await first.close()

        let second = try await SQLiteFlagStore(path: path)
        let (_, bootstrap) = try await FlagServer.start(store: second)
        let token = try #require(bootstrap?.adminToken)
        let tokens = try await second.tokens()
        #expect(tokens.count == 2)
        #expect(tokens.first { $0.id == unseen[0].id }?.revokedAt != nil)
        #expect(TokenIssuer.verify(token, in: Dictionary(uniqueKeysWithValues: tokens.map { ($0.id, $0) }))?.revokedAt == nil)
        #expect(try await second.isBootstrapFinished())
        await second.close()

        // Finished: later starts issue nothing.
        let third = try await SQLiteFlagStore(path: path)
        let (_, again) = try await FlagServer.start(store: third)
        #expect(again?.adminToken == nil)
        #expect(try await third.tokens().count == 2)
        await third.close()
    }
}
