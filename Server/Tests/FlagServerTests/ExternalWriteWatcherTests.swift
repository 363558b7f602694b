@testable import FlagServer
import Foundation
import Logging
import NIOHTTP1
import Testing

/// A server on SQLite serves what another process committed to its file: a token made by
/// `flag-server add-token` while the server runs is accepted once the watcher looks, without a
/// restart (it used to wait for a restart, although the docs promised "the next write").
struct ExternalWriteWatcherTests {
    @Test
    func aTokenAnotherProcessAddsIsAcceptedAfterTheNextLook() async throws {
        let path = TemporaryDirectory().path + "/flags.sqlite"
        let store = try await SQLiteFlagStore(path: path)
        try await TestServer.with(store: store) { server in
            let watcher = ExternalWriteWatcher(admin: server.server.admin, store: store, logger: Logger(label: "test"))
            let seen = try await store.dataVersion()

            // The server's own writes do not count as another process's.
            try await server.booleanFlag("own-write")
            #expect(try await store.dataVersion() == seen)
            #expect(await watcher.check(after: seen) == seen)

            // `flag-server add-token` is another connection on the same file.
            let other = try await SQLiteFlagStore(path: path)
            let (token, record) = TokenIssuer.issue(name: "ops", environment: TokenIssuer.allEnvironments, role: .admin, at: Date())
            try await other.insertToken(record)
            await other.close()
            #expect(try await server.request(.GET, "/admin/v1/flags", token: token).status == 401)

            let now = await watcher.check(after: seen)
            #expect(now != seen)
            #expect(try await server.request(.GET, "/admin/v1/flags", token: token).status == 200)
            // Nothing new since: the next look reloads nothing.
            #expect(await watcher.check(after: now) == now)
        }
    }
}
