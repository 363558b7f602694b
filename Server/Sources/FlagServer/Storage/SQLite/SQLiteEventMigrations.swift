/// The schema of ``SQLiteFlagEventStore``'s database, as numbered migrations applied in order and
/// recorded in `flag_event_migrations`.
///
/// Append a migration to change the schema; never edit one that has shipped.
enum SQLiteEventMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (
            1,
            [
                // One row per batch recorded: its id counts once per environment.
                """
                CREATE TABLE flag_event_batches (
                    seq INTEGER PRIMARY KEY,
                    environment TEXT NOT NULL,
                    id TEXT NOT NULL,
                    received_at INTEGER NOT NULL,
                    app_version TEXT NOT NULL,
                    build_configuration TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    dropped_exposures INTEGER NOT NULL,
                    dropped_summaries INTEGER NOT NULL,
                    dropped_tracked INTEGER NOT NULL,
                    UNIQUE (environment, id)
                )
                """,
                "CREATE INDEX flag_event_batches_by_received_at ON flag_event_batches (received_at)",
                """
                CREATE TABLE flag_event_exposures (
                    batch INTEGER NOT NULL,
                    ordinal INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    value TEXT,
                    reason TEXT NOT NULL,
                    revision TEXT,
                    unit TEXT,
                    time INTEGER NOT NULL
                )
                """,
                "CREATE INDEX flag_event_exposures_by_flag ON flag_event_exposures (environment, flag, time)",
                "CREATE INDEX flag_event_exposures_by_batch ON flag_event_exposures (batch)",
                """
                CREATE TABLE flag_event_tracked (
                    batch INTEGER NOT NULL,
                    ordinal INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    value REAL,
                    attributes TEXT,
                    unit TEXT,
                    variants TEXT,
                    time INTEGER NOT NULL
                )
                """,
                "CREATE INDEX flag_event_tracked_by_name ON flag_event_tracked (environment, name, time)",
                "CREATE INDEX flag_event_tracked_by_batch ON flag_event_tracked (batch)",
                """
                CREATE TABLE flag_event_rollups_hourly (
                    bucket INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    app_version TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    evaluations INTEGER NOT NULL,
                    exposures INTEGER NOT NULL,
                    PRIMARY KEY (bucket, environment, flag, variant, reason, app_version, platform)
                ) WITHOUT ROWID
                """,
                "CREATE INDEX flag_event_rollups_hourly_by_flag ON flag_event_rollups_hourly (environment, flag, bucket)",
                """
                CREATE TABLE flag_event_rollups_daily (
                    bucket INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    app_version TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    evaluations INTEGER NOT NULL,
                    exposures INTEGER NOT NULL,
                    PRIMARY KEY (bucket, environment, flag, variant, reason, app_version, platform)
                ) WITHOUT ROWID
                """,
                "CREATE INDEX flag_event_rollups_daily_by_flag ON flag_event_rollups_daily (environment, flag, bucket)",
                // The units seen per flag, variant and day, so that each counts once. Keyed by
                // unit before flag: a batch comes from one device, so its rows land together
                // on a page or two rather than one page per flag.
                """
                CREATE TABLE flag_event_units (
                    day INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    unit TEXT NOT NULL,
                    PRIMARY KEY (day, environment, unit, flag, variant)
                ) WITHOUT ROWID
                """,
                """
                CREATE TABLE flag_event_unit_counts (
                    day INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    units INTEGER NOT NULL,
                    PRIMARY KEY (day, environment, flag, variant)
                ) WITHOUT ROWID
                """,
                """
                CREATE TABLE flag_event_tracked_daily (
                    day INTEGER NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    value_sum REAL NOT NULL,
                    PRIMARY KEY (day, environment, name)
                ) WITHOUT ROWID
                """,
                """
                CREATE TABLE flag_event_last_evaluated (
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    PRIMARY KEY (environment, flag)
                ) WITHOUT ROWID
                """,
            ]
        ),
        (
            2,
            ["flag_event_rollups_hourly", "flag_event_rollups_daily"].flatMap(SQLiteEventMigrations.rollupsKeyedBySource)
                + SQLiteEventMigrations.dailyRollupsWithoutTheHoursKept
        ),
        (3, SQLiteEventMigrations.experimentResults),
        (4, SQLiteEventMigrations.experimentSegments),
        (5, SQLiteEventMigrations.experimentSampleKeys),
    ]

    /// Incremental experiment results (``ExperimentResultsStore``): per experiment its state (the
    /// query it counts, the batch sequence counted through, the per-arm sums) and its units; the
    /// raw tracked events by unit, to recount a unit whose first exposure arrives after its events.
    static let experimentResults = [
        "CREATE TABLE flag_event_experiments (experiment TEXT PRIMARY KEY NOT NULL, state TEXT NOT NULL)",
        """
        CREATE TABLE flag_event_experiment_units (
            experiment TEXT NOT NULL,
            unit TEXT NOT NULL,
            arm TEXT NOT NULL,
            first_exposure INTEGER NOT NULL,
            reassigned INTEGER NOT NULL,
            metric_values TEXT NOT NULL,
            PRIMARY KEY (experiment, unit)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX flag_event_tracked_by_unit ON flag_event_tracked (environment, unit) WHERE unit IS NOT NULL",
    ]

    /// From version 2 an ingest adds to the hourly rollups only, and a day's count is its row of
    /// `flag_event_rollups_daily` (the hours folded into it when they expired) plus its hours still
    /// in `flag_event_rollups_hourly`. Version 1 added every event to both: take the hours kept out
    /// of the days, and drop the day rows that held nothing else.
    static let dailyRollupsWithoutTheHoursKept = [
        """
        UPDATE flag_event_rollups_daily AS d SET
            evaluations = d.evaluations - h.evaluations, exposures = d.exposures - h.exposures
        FROM (
            SELECT bucket - (bucket % 86400000 + 86400000) % 86400000 AS day, environment, app_version, platform, flag, variant, reason,
                SUM(evaluations) AS evaluations, SUM(exposures) AS exposures
            FROM flag_event_rollups_hourly
            GROUP BY day, environment, app_version, platform, flag, variant, reason
        ) AS h
        WHERE d.bucket = h.day AND d.environment = h.environment AND d.app_version = h.app_version
            AND d.platform = h.platform AND d.flag = h.flag AND d.variant = h.variant AND d.reason = h.reason
        """,
        """
        DELETE FROM flag_event_rollups_daily AS d
        WHERE d.evaluations = 0 AND d.exposures = 0 AND EXISTS (
            SELECT 1 FROM flag_event_rollups_hourly AS h
            WHERE h.bucket >= d.bucket AND h.bucket < d.bucket + 86400000 AND h.environment = d.environment
                AND h.app_version = d.app_version AND h.platform = d.platform AND h.flag = d.flag
                AND h.variant = d.variant AND h.reason = d.reason)
        """,
    ]

    /// Rebuilds the rollup table `table` keyed by source (app version, platform) before flag:
    /// a batch comes from one source, so the rows one ingest adds to lie together on a few pages
    /// of each bucket rather than on one page per flag, and a commit logs those few pages.
    /// The secondary index by flag serves the queries of one flag, as before.
    static func rollupsKeyedBySource(_ table: String) -> [String] {
        [
            """
            CREATE TABLE \(table)_by_source (
                bucket INTEGER NOT NULL,
                environment TEXT NOT NULL,
                flag TEXT NOT NULL,
                variant TEXT NOT NULL,
                reason TEXT NOT NULL,
                app_version TEXT NOT NULL,
                platform TEXT NOT NULL,
                evaluations INTEGER NOT NULL,
                exposures INTEGER NOT NULL,
                PRIMARY KEY (bucket, environment, app_version, platform, flag, variant, reason)
            ) WITHOUT ROWID
            """,
            """
            INSERT INTO \(table)_by_source (bucket, environment, flag, variant, reason, app_version, platform, evaluations, exposures)
            SELECT bucket, environment, flag, variant, reason, app_version, platform, evaluations, exposures FROM \(table)
            """,
            "DROP TABLE \(table)",
            "ALTER TABLE \(table)_by_source RENAME TO \(table)",
            "CREATE INDEX \(table)_by_flag ON \(table) (environment, flag, bucket)",
        ]
    }
}
