import FlagServer
import Foundation
import Synchronization

/// A `FlagStore` in memory, so `FlagAdmin` writes the way the server writes without a database:
/// it checks the revisions a write is based on, applies the changes with the same
/// `ServerState.applying` the SQLite store uses, and counts commits.
final class MemoryFlagStore: FlagStore {
    private struct Contents {
        var state: ServerState
        var commits = 0
    }

    private let contents: Mutex<Contents>

    init(_ state: ServerState) {
        contents = Mutex(Contents(state: state))
    }

    /// The stored state.
    var state: ServerState { contents.withLock { $0.state } }
    /// How many writes were committed.
    var commits: Int { contents.withLock { $0.commits } }

    func migrate() async throws(StoreError) {}
    func schemaVersion() async throws(StoreError) -> Int { 1 }
    func load() async throws(StoreError) -> ServerState { state }

    func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try contents.withLock { (contents: inout Contents) throws(StoreError) -> [String: Int] in
            for (environment, expected) in changes.basedOn.sorted(by: { $0.key < $1.key }) {
                let actual = contents.state.environments[environment]?.revision ?? 0
                guard actual == expected else {
                    throw .staleRevision(environment: environment, expected: expected, actual: actual)
                }
            }
            let (applied, drafts) = try contents.state.applying(changes.changes)
            var next = applied
            var revisions: [String: Int] = [:]
            for environment in Set(drafts.map(\.environment)) {
                next.environments[environment]?.revision += 1
                revisions[environment] = next.environments[environment]?.revision
            }
            contents.state = next
            contents.commits += 1
            return revisions
        }
    }

    func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] { [] }
    func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] { [] }
    func tokens() async throws(StoreError) -> [TokenRecord] { [] }
    func insertToken(_ token: TokenRecord) async throws(StoreError) {}
    /// The fixture's state counts as a finished first start: nothing here shows secrets.
    func isBootstrapFinished() async throws(StoreError) -> Bool { true }
    func finishBootstrap(at time: Date) async throws(StoreError) {}
    func close() async {}
    func revokeToken(id: String, at time: Date) async throws(StoreError) {}
}
