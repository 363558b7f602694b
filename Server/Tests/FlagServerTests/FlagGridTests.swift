import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Synchronization
import Testing

/// The flags grid's query: filters (tags, due for removal), sorting and pagination, and the links
/// that keep all of them.
struct FlagGridTests {
    static func flag(_ key: String, owner: String? = nil, phase: Int? = nil, removal: String? = nil, tags: String? = nil) -> FlagRecord {
        FlagRecord(
            key: key, type: .boolean, variants: ["on": true, "off": false],
            metadata: FlagRecordMetadata(owner: owner, phase: phase, removalTarget: removal, custom: tags.map { ["x-tags": .string($0)] } ?? [:]))
    }

    @Test
    func pagesHoldAHundredFlagsInKeyOrderAndAPageAfterTheEndShowsTheLast() {
        let flags = (0..<250).map { Self.flag(String(format: "flag-%03d", $0)) }.shuffled()
        var query = FlagGrid.Query()
        let first = FlagGrid(flags: flags, query: query)
        #expect(first.total == 250)
        #expect(first.pageCount == 3)
        #expect(first.flags.count == 100)
        #expect(first.flags.first?.key == "flag-000")
        query.page = 3
        let last = FlagGrid(flags: flags, query: query)
        #expect(last.flags.map(\.key) == (200..<250).map { String(format: "flag-%03d", $0) })
        query.page = 40
        #expect(FlagGrid(flags: flags, query: query).page == 3)
    }

    @Test
    func tagsComeFromTheXTagsMetadataAndFilter() {
        let flags = [Self.flag("a", tags: "checkout, payments,,checkout"), Self.flag("b", tags: "search"), Self.flag("c")]
        #expect(FlagGrid.tags(of: flags[0]) == ["checkout", "payments"])
        #expect(FlagGrid.tags(of: flags[2]) == [])
        var query = FlagGrid.Query()
        query.tag = "payments"
        #expect(FlagGrid(flags: flags, query: query).flags.map(\.key) == ["a"])
        // A search for a whole tag finds its flags too.
        query = FlagGrid.Query(ConsoleForm(parsing: "q=SEARCH"))
        #expect(FlagGrid(flags: flags, query: query).flags.map(\.key) == ["b"])
    }

    @Test
    func sortsByRemovalTargetAsVersionsWithFlagsWithoutOneLast() {
        let flags = [Self.flag("a", removal: "10.0"), Self.flag("b"), Self.flag("c", removal: "2.4"), Self.flag("d", removal: "2.10")]
        let ascending = FlagGrid(flags: flags, query: FlagGrid.Query(ConsoleForm(parsing: "sort=removal")))
        #expect(ascending.flags.map(\.key) == ["c", "d", "a", "b"])
        let owners = [Self.flag("x", owner: "web"), Self.flag("y", owner: "Apps"), Self.flag("z")]
        #expect(FlagGrid(flags: owners, query: FlagGrid.Query(ConsoleForm(parsing: "sort=owner"))).flags.map(\.key) == ["y", "x", "z"])
        #expect(FlagGrid(flags: owners, query: FlagGrid.Query(ConsoleForm(parsing: "sort=-key"))).flags.map(\.key) == ["z", "y", "x"])
    }

    @Test
    func dueForRemovalListsFlagsWhoseTargetIsAtOrBelowTheVersion() {
        let flags = [Self.flag("old", removal: "2.0"), Self.flag("now", removal: "3.1"), Self.flag("later", removal: "3.2"), Self.flag("never")]
        let due = FlagGrid(flags: flags, query: FlagGrid.Query(ConsoleForm(parsing: "due=3.1")))
        #expect(due.flags.map(\.key) == ["now", "old"])
    }

    @Test
    func linksKeepTheQueryAndDropDefaults() {
        let query = FlagGrid.Query(ConsoleForm(parsing: "q=check+out&tag=a%26b&sort=-phase&page=2&unknown=1"))
        #expect(query.queryString == "q=check%20out&tag=a%26b&sort=-phase&page=2")
        #expect(query.link { $0.page = 3 } == "/console/flags?q=check%20out&tag=a%26b&sort=-phase&page=3")
        #expect(FlagGrid.Query().link { _ in } == "/console/flags")
        // What a link writes reads back as the same query.
        #expect(FlagGrid.Query(ConsoleForm(parsing: query.queryString)) == query)
        #expect(FlagGrid.Query(ConsoleForm(parsing: "sort=bogus&page=-4")) == FlagGrid.Query())
    }

    /// The grid reads a flag's last change from the audit once per revision: again only after a
    /// write (a new revision) anywhere.
    @Test
    func theCacheReadsLastChangesOncePerRevision() async {
        let cache = FlagGridCache()
        var state = ServerState(flags: ["a": Self.flag("a", owner: "web", tags: "x")], environments: ["production": EnvironmentState(key: "production", revision: 3)])
        let reads = Mutex(0)
        let calls = Mutex(0)
        let entry = AuditEntry(
            environment: "production", revision: 3, time: Date(timeIntervalSince1970: 1), actor: "ana", reason: nil, subject: .flag,
            key: "a", before: nil, after: nil)
        func read(_ keys: [String]) async -> [String: AuditEntry] {
            reads.withLock { $0 += keys.count }
            calls.withLock { $0 += 1 }
            return keys.contains("a") ? ["a": entry] : [:]
        }
        #expect(await cache.lastChanges(of: ["a", "b"], in: state, reading: read).mapValues(\.actor) == ["a": "ana"])
        #expect(await cache.lastChanges(of: ["a", "b"], in: state, reading: read).count == 1)
        #expect(reads.withLock { $0 } == 2, "a flag without a change is remembered too")
        #expect(calls.withLock { $0 } == 1, "the keys a page lacks are read in one call")
        #expect(cache.facets(of: state).tags == ["x"])
        state.environments["production"]?.revision = 4
        state.flags["c"] = Self.flag("c", owner: "apps", tags: "y")
        _ = await cache.lastChanges(of: ["a"], in: state, reading: read)
        #expect(reads.withLock { $0 } == 3)
        #expect(cache.facets(of: state).owners == ["apps", "web"])
    }
}
