import FlagEvaluation
import FlagServer
import Foundation
import Testing

/// The suite every ``FlagStore`` implementation must pass. Add an implementation to `stores`.
struct FlagStoreCompatibilityTests {
    static let time = Date(timeIntervalSince1970: 1_800_000_000)
    static let flag = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])

    /// Runs `body` with a store of `kind`, seeded or empty, and closes the store afterwards.
    static func with(_ kind: StoreKind, seeded: Bool = true, _ body: (any FlagStore) async throws -> Void) async throws {
        try await kind.withFlagStore(migrated: seeded) { store in
            if seeded { try await Self.seed(store) }
            try await body(store)
        }
    }

    /// Two environments and one flag, in two revisions.
    static func seed(_ store: any FlagStore) async throws {
        try await store.commit(
            ChangeSet(actor: "test", changes: [.createEnvironment("dev"), .createEnvironment("prod")], basedOn: [:]),
            at: time)
        try await store.commit(
            ChangeSet(
                actor: "alice", reason: "new flag",
                changes: [.putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: "off"))],
                basedOn: ["dev": 1, "prod": 1]),
            at: time)
    }

    @Test(arguments: StoreKind.allCases)
    func migrateIsIdempotentAndVersioned(kind: StoreKind) async throws {
        try await Self.with(kind, seeded: false) { store in
            #expect(try await store.schemaVersion() == 0)
            try await store.migrate()
            try await store.migrate()
            #expect(try await store.schemaVersion() == 9)
            #expect(try await store.load() == ServerState())
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theEnvironmentsOrderAndRevertsAreStored(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            // Created in order: dev then prod.
            #expect(try await store.load().orderedEnvironmentKeys == ["dev", "prod"])
            let moved = try await store.commit(
                ChangeSet(actor: "ada", changes: [.orderEnvironments(["prod", "dev"])], basedOn: ["dev": 2, "prod": 2]), at: Self.time)
            #expect(moved == ["dev": 3, "prod": 3])
            #expect(try await store.load().orderedEnvironmentKeys == ["prod", "dev"])

            let on = FlagSettings(enabled: true, defaultVariant: "on")
            try await store.commit(
                ChangeSet(
                    actor: "ada", changes: [.putSettings(environment: "prod", flag: "checkout", on)], basedOn: ["dev": 3, "prod": 3],
                    revert: ChangeSet.Revert(environment: "prod", revision: 2)),
                at: Self.time)
            let audit = try await store.audit(environment: "prod", key: "checkout", limit: 2)
            #expect(audit.map(\.revertedTo) == [2, nil])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func everyWriteIsARevisionWithAudit(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let revisions = try await store.commit(
                ChangeSet(
                    actor: "bob", reason: "launch",
                    changes: [.putSettings(environment: "prod", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))],
                    basedOn: ["dev": 2, "prod": 2]),
                at: Self.time)
            #expect(revisions == ["prod": 3])
            let state = try await store.load()
            #expect(state.environments["prod"]?.revision == 3)
            #expect(state.environments["dev"]?.revision == 2)
            #expect(state.environments["prod"]?.settings["checkout"] == FlagSettings(enabled: true, defaultVariant: "on"))
            #expect(state.flags["checkout"] == Self.flag)

            let audit = try await store.audit(environment: "prod", key: "checkout", limit: 10)
            #expect(audit.map(\.revision) == [3, 2])
            #expect(audit[0].actor == "bob")
            #expect(audit[0].reason == "launch")
            #expect(audit[0].before?["settings"]?["enabled"] == false)
            #expect(audit[0].after?["settings"]?["enabled"] == true)
            #expect(audit[1].before == nil)
            let history = try await store.revisions(environment: "prod", limit: 10)
            #expect(history.map(\.revision) == [3, 2, 1])
            #expect(history.first?.actor == "bob")
        }
    }

    /// The newest entry of many keys in one read is what one read a key with a limit of 1 gives:
    /// over 500 keys (SQLite's reads go by 500), keys changed twice, a key changed only in the
    /// other environment, and keys without any entry.
    @Test(arguments: StoreKind.allCases)
    func theLatestAuditEntriesOfManyKeysAreEachKeysNewest(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let keys = (0..<520).map { String(format: "flag-%03d", $0) }
            let flags = keys.map { FlagRecord(key: $0, type: .boolean, variants: ["on": true, "off": false]) }
            try await store.commit(
                ChangeSet(
                    actor: "ada", changes: flags.map { .putFlag($0, initialSettings: FlagSettings(enabled: false, defaultVariant: "off")) },
                    basedOn: ["dev": 2, "prod": 2]),
                at: Self.time)
            let on = FlagSettings(enabled: true, defaultVariant: "on")
            try await store.commit(
                ChangeSet(
                    actor: "bob", reason: "launch",
                    changes: keys.enumerated().filter { $0.offset % 7 == 0 }.map { .putSettings(environment: "prod", flag: $0.element, on) },
                    basedOn: ["dev": 3, "prod": 3]),
                at: Self.time.addingTimeInterval(60))
            try await store.commit(
                ChangeSet(actor: "cy", changes: [.putSettings(environment: "dev", flag: "flag-001", on)], basedOn: ["dev": 3, "prod": 4]),
                at: Self.time.addingTimeInterval(120))
            let asked = keys + ["checkout", "missing-1", "missing-2", "flag-000"]
            for environment in ["prod", "dev"] {
                var oneByOne: [String: AuditEntry] = [:]
                for key in Set(asked) {
                    if let entry = try await store.audit(environment: environment, key: key, limit: 1).first { oneByOne[key] = entry }
                }
                let batched = try await store.latestAuditEntries(environment: environment, keys: asked)
                #expect(batched == oneByOne, "\(environment)")
                #expect(batched.count == keys.count + 1, "every flag and checkout; not the missing keys")
            }
            let prod = try await store.latestAuditEntries(environment: "prod", keys: ["flag-007", "flag-008"])
            #expect(prod["flag-007"]?.actor == "bob" && prod["flag-007"]?.revision == 4)
            #expect(prod["flag-008"]?.actor == "ada" && prod["flag-008"]?.revision == 3)
            #expect(try await store.latestAuditEntries(environment: "dev", keys: ["flag-001"])["flag-001"]?.actor == "cy")
            #expect(try await store.latestAuditEntries(environment: "prod", keys: []).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aWriteBasedOnAStaleRevisionIsRefusedAndWritesNothing(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let before = try await store.load()
            let stale = ChangeSet(
                actor: "replica-b",
                changes: [.putSettings(environment: "dev", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))],
                basedOn: ["dev": 1, "prod": 2])
            await #expect(throws: StoreError.staleRevision(environment: "dev", expected: 1, actual: 2)) {
                try await store.commit(stale, at: Self.time)
        }
        #expect(try await store.load() == before)
        #expect(try await store.audit(environment: "dev", key: nil, limit: 10).count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aChangeSetWithAFailingChangeIsRefusedWhole(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let before = try await store.load()
            let changes = ChangeSet(
                actor: "test",
                changes: [
                    .putSegment(environment: "dev", key: "beta", rule: ["in": ["@beta.example", ["var": "email"]]]),
                    .putSettings(environment: "dev", flag: "missing", FlagSettings(enabled: true, defaultVariant: "on")),
                ],
                basedOn: before.revisions)
            await #expect(throws: StoreError.notFound("flag \"missing\"")) {
                try await store.commit(changes, at: Self.time)
        }
        #expect(try await store.load() == before)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func segmentsAndDeletionsAreStoredAndAudited(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            try await store.commit(
                ChangeSet(actor: "t", changes: [.putSegment(environment: "dev", key: "beta", rule: ["==": [1, 1]])], basedOn: [:]),
                at: Self.time)
            #expect(try await store.load().environments["dev"]?.segments == ["beta": ["==": [1, 1]]])
            try await store.commit(ChangeSet(actor: "t", changes: [.deleteFlag("checkout")], basedOn: [:]), at: Self.time)
            let state = try await store.load()
            #expect(state.flags.isEmpty)
            #expect(state.environments["prod"]?.settings.isEmpty == true)
            let audit = try await store.audit(environment: "prod", key: "checkout", limit: 1)
            #expect(audit.first?.after == nil)
            #expect(audit.first?.before?["flag"]?["key"] == "checkout")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func tokensAreStoredAndRevoked(kind: StoreKind) async throws {
        try await Self.with(kind) { store in
            let (_, record) = TokenIssuer.issue(name: "ios", environment: "prod", role: .client, at: Self.time)
            try await store.insertToken(record)
            #expect(try await store.tokens() == [record])
            try await store.revokeToken(id: record.id, at: Self.time)
            #expect(try await store.tokens().first?.revokedAt == Self.time)
            await #expect(throws: StoreError.notFound("token \"nope\"")) {
                try await store.revokeToken(id: "nope", at: Self.time)
        }
        }
    }
}

/// A fresh directory under the system's temporary directory.
struct TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("flag-server-tests-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
}
