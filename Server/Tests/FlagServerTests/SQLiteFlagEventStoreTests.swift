import FlagEvaluation
@testable import FlagServer
import Foundation
import SQLiteNIO
import Testing

/// What only the SQLite event store does: its file's layout and the migrations that change it.
struct SQLiteFlagEventStoreTests {
    typealias Fixtures = FlagEventStoreCompatibilityTests

    @Test
    func aNewDatabaseHasPagesOfOneKilobyte() async throws {
        let store = try await SQLiteFlagEventStore(path: TemporaryDirectory().path + "/events.sqlite")
        do {
            try await store.migrate()
            let rows = try await store.connection.query("PRAGMA page_size")
            #expect(rows.first?.column("page_size")?.integer == 1024)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// A database migrated to version 1 only (the schema that shipped first), with rollups in it,
    /// keeps every rollup when migration 2 rebuilds the rollup tables keyed by source, and goes on
    /// adding to them.
    @Test
    func rekeyingTheRollupsBySourceKeepsAndExtendsThem() async throws {
        let t0 = Fixtures.t0, hour = Fixtures.hour, day0 = Fixtures.day0
        let store = try await SQLiteFlagEventStore(path: TemporaryDirectory().path + "/events.sqlite")
        do {
            let connection = await store.connection
            _ = try await connection.query(
                "CREATE TABLE flag_event_migrations (version INTEGER PRIMARY KEY NOT NULL, applied_at REAL NOT NULL)")
            for statement in try #require(SQLiteEventMigrations.all.first { $0.version == 1 }).statements {
                _ = try await connection.query(statement)
            }
            _ = try await connection.query("INSERT INTO flag_event_migrations (version, applied_at) VALUES (1, 0)")
            let before = [
                Fixtures.batch(
                    "a", exposures: [Fixtures.exposure(unit: "u1", at: t0)],
                    summaries: [Fixtures.summary(count: 3, start: t0), Fixtures.summary("search", "off", count: 2, start: t0 + hour)]),
                Fixtures.batch("b", source: Fixtures.android, summaries: [Fixtures.summary(count: 5, start: t0)]),
            ]
            #expect(try await store.ingest(before) == [true, true])

            try await store.migrate()
            let schema = try await connection.query(
                "SELECT sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'flag_event_rollups_%' ORDER BY name")
            #expect(schema.count == 2)
            for row in schema {
                #expect(row.column("sql")?.string?.contains("PRIMARY KEY (bucket, environment, app_version, platform, flag, variant, reason)") == true)
            }
            // The days keep nothing the hours kept still count: those are added when read.
            let daily = try await connection.query("SELECT COUNT(*) AS n FROM flag_event_rollups_daily")
            #expect(daily.first?.column("n")?.integer == 0)
            #expect(try await store.ingest([Fixtures.batch("c", summaries: [Fixtures.summary(count: 7, start: t0)])]) == [true])

            #expect(try await store.rollups(environment: "prod", flag: nil, granularity: .hour, from: t0, to: t0 + 2 * hour) == [
                Fixtures.rollup(t0, evaluations: 10, exposures: 1),
                Fixtures.rollup(t0, source: Fixtures.android, evaluations: 5, exposures: 0),
                Fixtures.rollup(t0 + hour, "search", "off", evaluations: 2, exposures: 0),
            ])
            #expect(try await store.rollups(environment: "prod", flag: "checkout", granularity: .day, from: day0, to: day0 + Fixtures.day) == [
                Fixtures.rollup(day0, evaluations: 10, exposures: 1),
                Fixtures.rollup(day0, source: Fixtures.android, evaluations: 5, exposures: 0),
            ])
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The connection that ingests never checkpoints in a commit (its caller would wait for it);
    /// a connection of the store's own copies the log into the database every few ingests, beside
    /// them: once it is done, the database file alone holds what was ingested.
    @Test
    func checkpointsCopyTheLogIntoTheDatabaseBesideTheIngests() async throws {
        let directory = TemporaryDirectory().path
        let store = try await SQLiteFlagEventStore(path: directory + "/events.sqlite", checkpointInterval: 3)
        do {
            try await store.migrate()
            let automatic = try await store.connection.query("PRAGMA wal_autocheckpoint")
            #expect(automatic.first?.column("wal_autocheckpoint")?.integer == 0)
            for index in 0..<6 {
                #expect(try await store.ingest([Fixtures.batch("b\(index)", summaries: [Fixtures.summary(count: 1, start: Fixtures.t0)])]) == [true])
            }
            await store.waitForCheckpoints()
            // The database file without its log: a copy opened alone sees what the checkpoints copied.
            try FileManager.default.copyItem(atPath: directory + "/events.sqlite", toPath: directory + "/copy.sqlite")
            let copy = try await SQLiteConnection.open(storage: .file(path: directory + "/copy.sqlite"))
            let batches = try await copy.query("SELECT COUNT(*) AS n FROM flag_event_batches")
            #expect(batches.first?.column("n")?.integer == 6)
            try await copy.close()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// A log that grew in a burst (ingests with no checkpoint between them) is cut back to the
    /// store's bound once a checkpoint copied it and the writer starts it over: its file does not
    /// keep the burst's size for the life of the database.
    @Test
    func theLogsFileIsCutBackToItsBoundAfterABurst() async throws {
        let directory = TemporaryDirectory().path
        let bound = 64 * 1024
        let store = try await SQLiteFlagEventStore(
            path: directory + "/events.sqlite", checkpointInterval: 40, maximumLogBytes: bound)
        func logBytes() throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: directory + "/events.sqlite-wal")[.size] as? Int) ?? 0
        }
        do {
            try await store.migrate()
            // 39 ingests without a checkpoint: the log holds all of them.
            for index in 0..<39 {
                let summaries = (0..<40).map { Fixtures.summary("flag-\(index)-\($0)", count: 1, start: Fixtures.t0) }
                #expect(try await store.ingest([Fixtures.batch("burst-\(index)", summaries: summaries)]) == [true])
            }
            let burst = try logBytes()
            #expect(burst > 4 * bound)
            // The 40th starts a checkpoint; the next ingest starts the log over, and its file is cut back.
            #expect(try await store.ingest([Fixtures.batch("burst-39", summaries: [Fixtures.summary(count: 1, start: Fixtures.t0)])]) == [true])
            await store.waitForCheckpoints()
            #expect(try await store.ingest([Fixtures.batch("after", summaries: [Fixtures.summary(count: 1, start: Fixtures.t0)])]) == [true])
            let after = try logBytes()
            #expect(after <= bound, "the log's file kept \(after) bytes after a burst of \(burst)")
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

}
