import FlagEvaluation
import FlagServer
import Foundation
import Testing

/// The suite every ``ConsoleAccountStore`` implementation must pass. Add an implementation to
/// `StoreKind` and `StoreLocation.openFlagStore()`.
struct ConsoleAccountStoreCompatibilityTests {
    static func with(_ kind: StoreKind, _ body: (any FlagStore & ConsoleAccountStore) async throws -> Void) async throws {
        try await kind.withFlagStore { store in try await body(store) }
    }

    static let time = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: StoreKind.allCases)
    func usersAreStoredOnceByName(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            #expect(try await store.consoleUsers().isEmpty)
            let erin = ConsoleUser(name: "erin", passwordHash: "$2b$04$hash", role: .editor, createdAt: Self.time)
            let vera = ConsoleUser(name: "vera", passwordHash: "$2b$04$other", role: .viewer, createdAt: Self.time)
            try await store.insertConsoleUser(vera)
            try await store.insertConsoleUser(erin)
            #expect(try await store.consoleUsers() == [erin, vera])
            await #expect(throws: StoreError.conflict("console user \"erin\" exists already")) {
                try await store.insertConsoleUser(ConsoleUser(name: "erin", passwordHash: "x", role: .admin, createdAt: Self.time))
            }
            #expect(try await store.consoleUsers().first?.role == .editor)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func usersAreUpdatedWithTheirAuditAndTheirSessionsEnded(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            func entry(_ reason: String) -> AuditEntry {
                AuditEntry(
                    environment: AuditEntry.accountsEnvironment, revision: 0, time: Self.time, actor: "ada", reason: reason,
                    subject: .user, key: "erin", before: nil, after: ["name": "erin"])
            }
            var erin = ConsoleUser(name: "erin", passwordHash: "h", role: .editor, createdAt: Self.time)
            try await store.insertConsoleUser(erin, audit: entry("create"))
            let session = ConsoleSession(digest: "aa", user: "erin", createdAt: Self.time, expiresAt: Self.time + 3600)
            try await store.insertConsoleSession(session)

            erin.role = .viewer
            try await store.updateConsoleUser(erin, endingSessions: false, audit: entry("role viewer"))
            #expect(try await store.consoleSession(digest: "aa") == session)
            erin.disabledAt = Self.time + 60
            try await store.updateConsoleUser(erin, endingSessions: true, audit: entry("disable"))
            #expect(try await store.consoleUsers() == [erin])
            #expect(try await store.consoleSession(digest: "aa") == nil)
            #expect(try await store.consoleUserAudit(limit: 10).map(\.reason) == ["disable", "role viewer", "create"])

            await #expect(throws: StoreError.notFound("console user \"ghost\"")) {
                try await store.updateConsoleUser(
                    ConsoleUser(name: "ghost", passwordHash: "h", role: .admin, createdAt: Self.time), endingSessions: true,
                    audit: entry("ghost"))
            }
            #expect(try await store.consoleUserAudit(limit: 10).count == 3)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func sessionsAreFoundByDigestAndDeleted(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            try await store.insertConsoleUser(ConsoleUser(name: "erin", passwordHash: "h", role: .editor, createdAt: Self.time))
            let live = ConsoleSession(digest: "aa", user: "erin", createdAt: Self.time, expiresAt: Self.time + 3600)
            let expired = ConsoleSession(digest: "bb", user: "erin", createdAt: Self.time - 7200, expiresAt: Self.time - 3600)
            let other = ConsoleSession(digest: "cc", user: "erin", createdAt: Self.time, expiresAt: Self.time + 3600)
            for session in [live, expired, other] { try await store.insertConsoleSession(session) }
            #expect(try await store.consoleSession(digest: "aa") == live)
            #expect(try await store.consoleSession(digest: "zz") == nil)

            // Deleting one also clears the expired ones, and leaves the others.
            try await store.deleteConsoleSession(digest: "aa", expiredBefore: Self.time)
            #expect(try await store.consoleSession(digest: "aa") == nil)
            #expect(try await store.consoleSession(digest: "bb") == nil)
            #expect(try await store.consoleSession(digest: "cc") == other)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionNeedsAnExistingUser(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            await #expect(throws: StoreError.notFound("console user \"ghost\"")) {
                try await store.insertConsoleSession(
                    ConsoleSession(digest: "aa", user: "ghost", createdAt: Self.time, expiresAt: Self.time + 60))
            }
        }
    }

    @Test
    func sessionsSurviveAReopenOfTheFile() async throws {
        // Replicas share the database: a session created through one connection is seen by another.
        let path = TemporaryDirectory().path + "/flags.sqlite"
        let first = try await SQLiteFlagStore(path: path)
        try await first.migrate()
        let second = try await SQLiteFlagStore(path: path)
        try await first.insertConsoleUser(ConsoleUser(name: "erin", passwordHash: "h", role: .editor, createdAt: Self.time))
        try await first.insertConsoleSession(ConsoleSession(digest: "aa", user: "erin", createdAt: Self.time, expiresAt: Self.time + 60))
        #expect(try await second.consoleSession(digest: "aa")?.user == "erin")
        try await second.deleteConsoleSession(digest: "aa", expiredBefore: Self.time)
        #expect(try await first.consoleSession(digest: "aa") == nil)
        await first.close()
        await second.close()
    }
}
