import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import Synchronization
import Testing

/// A write costs what it changes: it applies its committed changes in memory instead of reloading
/// the store, builds its audit from the touched subjects, validates what it touched and what
/// depends on it, and recompiles only the touched flags, with the same results as doing it all.
struct WritePathTests {
    // MARK: - No reload

    @Test
    func aWriteDoesNotReloadTheStoreAndItsStateEqualsTheStoredOne() async throws {
        let base = try await SQLiteFlagStore(path: TemporaryDirectory().path + "/flags.sqlite")
        let store = LoadCountingStore(base)
        let (server, _) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests))
        let loadsAtStart = store.loads
        let flag = FlagRecord(
            key: "ratio", type: .float, variants: ["whole": .double(1.0), "half": .double(0.5)],
            metadata: FlagRecordMetadata(custom: ["weight": .double(2.0)]))
        try await server.admin.write(actor: "test", reason: nil) { _ in
            [.putFlag(flag, initialSettings: FlagSettings(enabled: true, defaultVariant: "whole"))]
        }
        try await server.admin.write(actor: "test", reason: nil) { _ in
            [.putSettings(environment: "production", flag: "ratio", FlagSettings(enabled: true, defaultVariant: "half"))]
        }
        try await server.admin.write(actor: "test", reason: nil) { _ in
            [.putSegment(environment: "production", key: "beta", rule: ["in": [["var": "email"], "@example.com"]])]
        }
        #expect(store.loads == loadsAtStart)
        // What the admin holds and serves is what a replica loading the store holds and serves,
        // down to the number cases (1.0 is stored and read back as 1).
        let memory = await server.admin.state
        let loaded = try await base.load()
        #expect(memory == loaded)
        let served = try #require(server.publisher.current.environments["production"])
        let fresh = try #require(CompiledEnvironment(state: loaded, environment: "production", ttlSeconds: 60))
        #expect(served.revision == fresh.revision)
        #expect(served.bulkBytes == fresh.bulkBytes)
        #expect(served.flagd.body == fresh.flagd.body)
        #expect(served.appConfig.body == fresh.appConfig.body)
        await base.close()
    }

    // MARK: - Audit drafts

    static func baseState() -> ServerState {
        let checkout = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        let banner = FlagRecord(
            key: "banner", type: .string, variants: ["a": "A", "b": "B"], metadata: FlagRecordMetadata(requires: ["checkout"]))
        let limit = FlagRecord(key: "limit", type: .integer, variants: ["low": 1, "high": 10])
        // Archived: kept, not served.
        let retired = FlagRecord(key: "retired", type: .boolean, variants: ["on": true, "off": false], archived: true)
        var flags: [String: FlagRecord] = [:]
        for flag in [checkout, banner, limit, retired] { flags[flag.key] = flag }
        for index in 0..<20 {
            flags["filler-\(index)"] = FlagRecord(key: "filler-\(index)", type: .boolean, variants: ["on": true, "off": false])
        }
        var environments: [String: EnvironmentState] = [:]
        for (position, key) in ["development", "staging", "production"].enumerated() {
            var environment = EnvironmentState(key: key, revision: 3, position: position)
            for flag in flags.values {
                environment.settings[flag.key] = FlagSettings(enabled: position != 2, defaultVariant: flag.variants.keys.sorted()[0])
            }
            environment.segments["beta"] = ["in": [["var": "email"], "@example.com"]]
            environment.settings["banner"] = FlagSettings(
                enabled: true, defaultVariant: "a", targeting: ["if": [["$ref": "beta"], "b", "a"]])
            environments[key] = environment
        }
        return ServerState(flags: flags, environments: environments)
    }

    static let changeKinds: [(String, [StateChange])] = [
        ("putFlag new", [.putFlag(FlagRecord(key: "fresh", type: .boolean, variants: ["on": true]), initialSettings: FlagSettings(enabled: true, defaultVariant: "on"))]),
        ("putFlag changed", [.putFlag(FlagRecord(key: "limit", type: .integer, variants: ["low": 1, "high": 20]), initialSettings: FlagSettings(enabled: false, defaultVariant: "low"))]),
        ("putFlag unchanged", [.putFlag(FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false]), initialSettings: FlagSettings(enabled: false, defaultVariant: "on"))]),
        ("deleteFlag", [.deleteFlag("limit")]),
        ("archiveFlag", [.archiveFlag("limit")]),
        ("restoreFlag", [.restoreFlag("retired")]),
        ("deleteFlag archived", [.deleteFlag("retired")]),
        ("putSettings", [.putSettings(environment: "production", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))]),
        ("putSettings twice", [
            .putSettings(environment: "staging", flag: "limit", FlagSettings(enabled: true, defaultVariant: "high")),
            .putSettings(environment: "staging", flag: "limit", FlagSettings(enabled: true, defaultVariant: "low")),
        ]),
        ("putSegment", [.putSegment(environment: "staging", key: "beta", rule: ["in": [["var": "email"], "@beta.example"]])]),
        ("new segment", [.putSegment(environment: "staging", key: "vip", rule: ["==": [["var": "tier"], "gold"]])]),
        ("deleteSegment", [.deleteSegment(environment: "development", key: "beta")]),
        ("createEnvironment", [.createEnvironment("qa"), .putSegment(environment: "qa", key: "beta", rule: ["==": [1, 1]])]),
        ("orderEnvironments", [.orderEnvironments(["production", "staging", "development"])]),
        ("mixed", [
            .deleteFlag("filler-3"), .putSettings(environment: "development", flag: "filler-4", FlagSettings(enabled: false, defaultVariant: nil)),
            .putFlag(FlagRecord(key: "filler-3", type: .boolean, variants: ["on": true]), initialSettings: FlagSettings(enabled: true, defaultVariant: "on")),
        ]),
    ]

    @Test(arguments: changeKinds.map(\.0))
    func theAuditOfTheTouchedSubjectsEqualsTheFullDiff(_ kind: String) throws {
        let changes = try #require(Self.changeKinds.first { $0.0 == kind }?.1)
        let state = Self.baseState()
        let transition = try state.transition(applying: changes)
        #expect(!transition.audit.isEmpty || kind == "putFlag unchanged")
        #expect(transition.audit == state.auditDrafts(to: transition.state))
        // The drafts' JSON is what encoding the model types gives.
        for draft in transition.audit where draft.subject == .flag {
            guard let after = draft.after, let flag = transition.state.flags[draft.key],
                let settings = transition.state.environments[draft.environment]?.settings[draft.key]
            else { continue }
            #expect(after == .object(["flag": JSONValue(encoding: flag), "settings": JSONValue(encoding: settings)]))
        }
    }

    @Test
    func applyingManyFlagsEditsInPlace() throws {
        // 2,000 flags in three environments: the delta names each once per environment.
        let state = Self.baseState()
        let changes = (0..<2000).map { index in
            StateChange.putFlag(
                FlagRecord(key: "bulk-\(index)", type: .boolean, variants: ["on": true]),
                initialSettings: FlagSettings(enabled: true, defaultVariant: "on"))
        }
        let transition = try state.transition(applying: changes)
        #expect(transition.state.flags.count == state.flags.count + 2000)
        #expect(transition.delta.settings.values.map(\.count) == [2000, 2000, 2000])
        #expect(transition.audit.count == 6000)
        #expect(transition.audit == state.auditDrafts(to: transition.state))
    }

    // MARK: - Incremental validation

    static let breakingChanges: [(String, [StateChange])] = [
        ("a required flag deleted", [.deleteFlag("checkout")]),
        ("a used segment deleted", [.deleteSegment(environment: "production", key: "beta")]),
        ("a segment broken", [.putSegment(environment: "staging", key: "beta", rule: ["no_such_operator": [1]])]),
        ("a segment not an object", [.putSegment(environment: "staging", key: "beta", rule: "text")]),
        ("a default variant missing", [.putSettings(environment: "development", flag: "limit", FlagSettings(enabled: true, defaultVariant: "medium"))]),
        ("targeting returns a missing variant", [.putSettings(environment: "production", flag: "limit", FlagSettings(enabled: true, defaultVariant: "low", targeting: ["if": [true, "huge", "low"]]))]),
        ("variants removed under targeting", [.putFlag(FlagRecord(key: "banner", type: .string, variants: ["a": "A"], metadata: FlagRecordMetadata(requires: ["checkout"])), initialSettings: FlagSettings(enabled: false, defaultVariant: "a"))]),
        ("a requires cycle", [.putFlag(FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false], metadata: FlagRecordMetadata(requires: ["banner"])), initialSettings: FlagSettings(enabled: false, defaultVariant: "on"))]),
        ("a required flag archived", [.archiveFlag("checkout")]),
        ("a flag made to require an archived one", [.putFlag(FlagRecord(key: "limit", type: .integer, variants: ["low": 1, "high": 10], metadata: FlagRecordMetadata(conflicts: ["retired"])), initialSettings: FlagSettings(enabled: false, defaultVariant: "low"))]),
        ("a bad environment key", [.createEnvironment("bad key")]),
        ("a bad flag", [.putFlag(FlagRecord(key: "typed", type: .integer, variants: ["x": "text"], metadata: FlagRecordMetadata(conflicts: ["nothing"])), initialSettings: FlagSettings(enabled: true, defaultVariant: "y"))]),
        ("a rule that does not compile", [.putSettings(environment: "staging", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on", targeting: ["if": [["$ref": "missing"], "on", "off"]]))]),
        ("valid", [.putSettings(environment: "staging", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "on"))]),
    ]

    @Test(arguments: breakingChanges.map(\.0))
    func incrementalValidationFindsWhatTheFullOneFinds(_ kind: String) throws {
        let changes = try #require(Self.breakingChanges.first { $0.0 == kind }?.1)
        let state = Self.baseState()
        #expect(StateValidator.problems(in: state).isEmpty)
        let transition = try state.transition(applying: changes)
        let full = StateValidator.problems(in: transition.state)
        #expect(full.isEmpty == (kind == "valid"))
        #expect(StateValidator.problems(in: transition.state, changedBy: transition.delta) == full)
    }

    // MARK: - Incremental compilation

    @Test(arguments: changeKinds.map(\.0))
    func recompilingTheTouchedFlagsEqualsCompilingTheEnvironment(_ kind: String) throws {
        let changes = try #require(Self.changeKinds.first { $0.0 == kind }?.1)
        let state = Self.baseState()
        var next = try state.transition(applying: changes)
        for key in next.state.environments.keys { next.state.environments[key]?.revision += 1 }
        for key in next.state.environments.keys.sorted() {
            let updated: CompiledEnvironment
            if let previous = CompiledEnvironment(state: state, environment: key, ttlSeconds: 30) {
                updated = try #require(CompiledEnvironment(
                    updating: previous, state: next.state, flags: next.delta.settings[key] ?? [],
                    segmentsChanged: !(next.delta.segments[key] ?? []).isEmpty, ttlSeconds: 30))
            } else {
                updated = try #require(CompiledEnvironment(state: next.state, environment: key, ttlSeconds: 30))
            }
            let full = try #require(CompiledEnvironment(state: next.state, environment: key, ttlSeconds: 30))
            #expect(updated.bulkBytes == full.bulkBytes, "\(key)")
            #expect(updated.sortedKeys == full.sortedKeys)
            #expect(updated.types == full.types)
            #expect(updated.encodedEntries.mapValues(\.range) == full.encodedEntries.mapValues(\.range))
            #expect(updated.evaluator.definitions.keys == full.evaluator.definitions.keys)
            #expect(updated.flagd.body == full.flagd.body)
            #expect(updated.appConfig.body == full.appConfig.body)
            // The pieces add up to what serializing the whole documents gives.
            let document = try #require(next.state.flagdDocument(environment: key, forEvaluation: true))
            #expect(String(decoding: full.flagd.body, as: UTF8.self) == document.serialized(prettyPrinted: true))
            #expect(try JSONValue(parsing: full.appConfig.body) == Self.appConfig(next.state, key))
            let context: JSONValue = ["targetingKey": "user-1", "email": "a@example.com"]
            #expect(
                OFREPBodies.bulk(context: context, in: updated, now: Date(timeIntervalSince1970: 0))
                    == OFREPBodies.bulk(context: context, in: full, now: Date(timeIntervalSince1970: 0)))
        }
    }

    /// The `app_config` document as its definition says: enabled served flags' default values.
    static func appConfig(_ state: ServerState, _ key: String) -> JSONValue {
        var flags: [String: JSONValue] = [:]
        var config: [String: JSONValue] = [:]
        for (flagKey, settings) in state.environments[key]!.settings where settings.enabled {
            guard let flag = state.flags[flagKey], !flag.archived, let variant = settings.defaultVariant, let value = flag.variants[variant]
            else { continue }
            if flag.type == .boolean { flags[flagKey] = value } else { config[flagKey] = value }
        }
        return ["schemaVersion": 1, "flags": .object(flags), "config": .object(config), "ttlSeconds": 30]
    }
}

/// A store that counts how often the whole state is loaded.
final class LoadCountingStore: FlagStore {
    let base: any FlagStore
    private let count = Atomic<Int>(0)

    init(_ base: any FlagStore) { self.base = base }

    var loads: Int { count.load(ordering: .relaxed) }

    func load() async throws(StoreError) -> ServerState {
        count.add(1, ordering: .relaxed)
        return try await base.load()
    }

    func migrate() async throws(StoreError) { try await base.migrate() }
    func schemaVersion() async throws(StoreError) -> Int { try await base.schemaVersion() }
    func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try await base.commit(changes, at: time)
    }
    func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] {
        try await base.revisions(environment: environment, limit: limit)
    }
    func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await base.audit(environment: environment, key: key, limit: limit)
    }
    func tokens() async throws(StoreError) -> [TokenRecord] { try await base.tokens() }
    func isBootstrapFinished() async throws(StoreError) -> Bool { try await base.isBootstrapFinished() }
    func finishBootstrap(at time: Date) async throws(StoreError) { try await base.finishBootstrap(at: time) }
    func insertToken(_ token: TokenRecord) async throws(StoreError) { try await base.insertToken(token) }
    func close() async { await base.close() }
    func revokeToken(id: String, at time: Date) async throws(StoreError) { try await base.revokeToken(id: id, at: time) }
}

/// A replica catching up with another replica's commits applies their audit entries instead of
/// reloading the store, and ends with the state and compiled environments a reload gives.
@Suite(.enabled(if: PostgresTestDatabase.enabled, "needs FLAG_SERVER_TEST_DATABASE_URL (source .ci/postgres.sh; postgres_setup)"))
struct ReplicaAuditCatchUpTests {
    @Test
    func aReplicaCatchesUpFromTheAuditWithoutReloading() async throws {
        let configuration = try PostgresTestDatabase.configuration(schema: PostgresTestDatabase.freshSchema())
        let first = PostgresFlagStore(configuration: configuration, logger: Logger(label: "replica-a"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout)
        try await TestServer.with(store: first, revisionCheck: .manual) { a in
            let quiet = QuietCountingStore(PostgresFlagStore(configuration: configuration, logger: Logger(label: "replica-b"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout))
            // No heartbeat: this store hears nothing on purpose (the test refreshes by hand), and
            // a heartbeat would take that silence for a frozen connection.
            try await TestServer.with(store: quiet, revisionCheck: .manual, heartbeat: nil) { b in
                let loads = quiet.loads
                let on = FlagSettings(enabled: true, defaultVariant: "whole")
                let ratio = FlagRecord(key: "ratio", type: .float, variants: ["whole": .double(1.0), "half": .double(0.5)])
                let gone = FlagRecord(key: "gone", type: .boolean, variants: ["on": true])
                try await a.server.admin.write(actor: "a", reason: nil) { _ in
                    [.putFlag(ratio, initialSettings: on), .putFlag(gone, initialSettings: FlagSettings(enabled: true, defaultVariant: "on"))]
                }
                try await a.server.admin.write(actor: "a", reason: nil) { _ in
                    [.putSegment(environment: "production", key: "beta", rule: ["in": [["var": "email"], "@example.com"]])]
                }
                try await a.server.admin.write(actor: "a", reason: nil) { _ in
                    [.putSettings(
                        environment: "production", flag: "ratio",
                        FlagSettings(enabled: true, defaultVariant: "whole", targeting: ["if": [["$ref": "beta"], "half", "whole"]]))]
                }
                try await a.server.admin.write(actor: "a", reason: nil) { _ in [.deleteFlag("gone")] }
                try await a.server.admin.write(actor: "a", reason: nil) { _ in
                    [.orderEnvironments(["production", "staging", "development"])]
                }
                try await a.server.admin.write(actor: "a", reason: "retired") { _ in [.archiveFlag("ratio")] }
                try await b.server.admin.refresh()
                #expect(quiet.loads == loads)
                try await Self.expectSameAsReload(b, first)
                // Archived on the other replica: kept, and no longer served here either.
                #expect(await b.server.admin.state.flags["ratio"]?.archived == true)
                #expect(b.server.publisher.current.environments["production"]?.types["ratio"] == nil)
                try await a.server.admin.write(actor: "a", reason: nil) { _ in [.restoreFlag("ratio")] }
                try await b.server.admin.refresh()
                #expect(quiet.loads == loads)
                try await Self.expectSameAsReload(b, first)
                #expect(b.server.publisher.current.environments["production"]?.types["ratio"] == .float)

                // A created environment is not in the audit of a served one: the replica reloads.
                try await a.server.admin.write(actor: "a", reason: nil) { _ in [.createEnvironment("qa")] }
                try await b.server.admin.refresh()
                #expect(quiet.loads == loads + 1)
                try await Self.expectSameAsReload(b, first)
            }
        }
    }

    static func expectSameAsReload(_ replica: TestServer, _ store: any FlagStore) async throws {
        let loaded = try await store.load()
        #expect(await replica.server.admin.state == loaded)
        for key in loaded.environments.keys {
            let served = try #require(replica.server.publisher.current.environments[key])
            let fresh = try #require(CompiledEnvironment(state: loaded, environment: key, ttlSeconds: 60))
            #expect(served.revision == fresh.revision)
            #expect(served.bulkBytes == fresh.bulkBytes)
            #expect(served.flagd.body == fresh.flagd.body)
            #expect(served.appConfig.body == fresh.appConfig.body)
        }
    }
}

/// A replica's store that hears no notification (the test calls `refresh()` itself) and counts
/// how often the whole state is loaded.
final class QuietCountingStore: ReplicatedFlagStore {
    let base: PostgresFlagStore
    private let count = Atomic<Int>(0)

    init(_ base: PostgresFlagStore) { self.base = base }

    var loads: Int { count.load(ordering: .relaxed) }

    func currentVersion() async throws(StoreError) -> StoreVersion { try await base.currentVersion() }
    func listen(
        onListening: @Sendable () async -> Void, onAnnouncement: @Sendable (RevisionAnnouncement?) async -> Void
    ) async throws(StoreError) {
        // Listening, but nothing ever arrives: wait until cancelled.
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        for await _ in never {}
    }
    func load() async throws(StoreError) -> ServerState {
        count.add(1, ordering: .relaxed)
        return try await base.load()
    }
    func migrate() async throws(StoreError) { try await base.migrate() }
    func schemaVersion() async throws(StoreError) -> Int { try await base.schemaVersion() }
    func commit(_ changes: ChangeSet, at time: Date) async throws(StoreError) -> [String: Int] {
        try await base.commit(changes, at: time)
    }
    func revisions(environment: String, limit: Int) async throws(StoreError) -> [RevisionRecord] {
        try await base.revisions(environment: environment, limit: limit)
    }
    func audit(environment: String, key: String?, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await base.audit(environment: environment, key: key, limit: limit)
    }
    func tokens() async throws(StoreError) -> [TokenRecord] { try await base.tokens() }
    func isBootstrapFinished() async throws(StoreError) -> Bool { try await base.isBootstrapFinished() }
    func finishBootstrap(at time: Date) async throws(StoreError) { try await base.finishBootstrap(at: time) }
    func insertToken(_ token: TokenRecord) async throws(StoreError) { try await base.insertToken(token) }
    func close() async { await base.close() }
    func revokeToken(id: String, at time: Date) async throws(StoreError) { try await base.revokeToken(id: id, at: time) }
    func announce(_ announcement: RevisionAnnouncement) async throws(StoreError) { try await base.announce(announcement) }
}
