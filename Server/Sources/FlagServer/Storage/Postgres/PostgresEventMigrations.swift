/// The schema of ``PostgresFlagEventStore``: tables of its own in the flag store's database,
/// numbered migrations of their own recorded in `flag_event_migrations` (never in
/// `schema_migrations`, whose versions are ``PostgresMigrations``').
///
/// The raw events are partitioned by day of `received_at`; the partitions are created by the
/// store as they are needed (``PostgresFlagEventStore``), not here. Text compared in keys and
/// orderings is `COLLATE "C"`: byte order, as in SQLite, and the cheapest comparison.
///
/// Append a migration to change the schema; never edit one that has shipped.
enum PostgresEventMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (
            1,
            [
                // One row per batch recorded: its id counts once per environment, whichever
                // replica records it. Not partitioned, so that the key holds across days.
                """
                CREATE TABLE flag_event_batches (
                    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    environment TEXT COLLATE "C" NOT NULL,
                    id TEXT COLLATE "C" NOT NULL,
                    received_at BIGINT NOT NULL,
                    app_version TEXT NOT NULL,
                    build_configuration TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    dropped_exposures BIGINT NOT NULL,
                    dropped_summaries BIGINT NOT NULL,
                    dropped_tracked BIGINT NOT NULL,
                    UNIQUE (environment, id)
                )
                """,
                "CREATE INDEX flag_event_batches_by_received_at ON flag_event_batches (received_at)",
                """
                CREATE TABLE flag_event_exposures (
                    received_at BIGINT NOT NULL,
                    batch BIGINT NOT NULL,
                    ordinal INTEGER NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    variant TEXT NOT NULL,
                    value TEXT,
                    reason TEXT NOT NULL,
                    revision TEXT,
                    unit TEXT,
                    time BIGINT NOT NULL
                ) PARTITION BY RANGE (received_at)
                """,
                "CREATE INDEX flag_event_exposures_by_flag ON flag_event_exposures (environment, flag, time)",
                """
                CREATE TABLE flag_event_tracked (
                    received_at BIGINT NOT NULL,
                    batch BIGINT NOT NULL,
                    ordinal INTEGER NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    name TEXT COLLATE "C" NOT NULL,
                    value DOUBLE PRECISION,
                    attributes TEXT,
                    unit TEXT,
                    variants TEXT,
                    time BIGINT NOT NULL
                ) PARTITION BY RANGE (received_at)
                """,
                "CREATE INDEX flag_event_tracked_by_name ON flag_event_tracked (environment, name, time)",
                // Rollup rows are updated in place by every batch that adds to them: room on
                // each page keeps those updates off the indexes (HOT).
                """
                CREATE TABLE flag_event_rollups_hourly (
                    bucket BIGINT NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    variant TEXT COLLATE "C" NOT NULL,
                    reason TEXT COLLATE "C" NOT NULL,
                    app_version TEXT COLLATE "C" NOT NULL,
                    platform TEXT COLLATE "C" NOT NULL,
                    evaluations BIGINT NOT NULL,
                    exposures BIGINT NOT NULL,
                    PRIMARY KEY (bucket, environment, flag, variant, reason, app_version, platform)
                ) WITH (fillfactor = 70)
                """,
                "CREATE INDEX flag_event_rollups_hourly_by_flag ON flag_event_rollups_hourly (environment, flag, bucket)",
                """
                CREATE TABLE flag_event_rollups_daily (
                    bucket BIGINT NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    variant TEXT COLLATE "C" NOT NULL,
                    reason TEXT COLLATE "C" NOT NULL,
                    app_version TEXT COLLATE "C" NOT NULL,
                    platform TEXT COLLATE "C" NOT NULL,
                    evaluations BIGINT NOT NULL,
                    exposures BIGINT NOT NULL,
                    PRIMARY KEY (bucket, environment, flag, variant, reason, app_version, platform)
                ) WITH (fillfactor = 70)
                """,
                "CREATE INDEX flag_event_rollups_daily_by_flag ON flag_event_rollups_daily (environment, flag, bucket)",
                // The units seen per flag, variant and day, so that each counts once. Keyed by
                // unit before flag: a batch comes from one device, so its rows land together
                // on a page or two rather than one page per flag.
                """
                CREATE TABLE flag_event_units (
                    day BIGINT NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    variant TEXT COLLATE "C" NOT NULL,
                    unit TEXT COLLATE "C" NOT NULL,
                    PRIMARY KEY (day, environment, unit, flag, variant)
                )
                """,
                """
                CREATE TABLE flag_event_unit_counts (
                    day BIGINT NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    variant TEXT COLLATE "C" NOT NULL,
                    units BIGINT NOT NULL,
                    PRIMARY KEY (day, environment, flag, variant)
                ) WITH (fillfactor = 70)
                """,
                """
                CREATE TABLE flag_event_tracked_daily (
                    day BIGINT NOT NULL,
                    environment TEXT COLLATE "C" NOT NULL,
                    name TEXT COLLATE "C" NOT NULL,
                    count BIGINT NOT NULL,
                    value_sum DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (day, environment, name)
                ) WITH (fillfactor = 70)
                """,
                """
                CREATE TABLE flag_event_last_evaluated (
                    environment TEXT COLLATE "C" NOT NULL,
                    flag TEXT COLLATE "C" NOT NULL,
                    time BIGINT NOT NULL,
                    PRIMARY KEY (environment, flag)
                ) WITH (fillfactor = 70)
                """,
            ]
        ),
        (2, PostgresEventMigrations.experimentResults),
        (3, PostgresEventMigrations.experimentSegments),
        (4, PostgresEventMigrations.experimentSampleKeys),
    ]

    /// Incremental experiment results (``ExperimentResultsStore``): per experiment its state (the
    /// query it counts, the batch sequence counted through, the per-arm sums) and its units; the
    /// raw rows by batch (what arrived since an update) and the tracked events by unit (to recount
    /// a unit whose first exposure arrives after its events).
    static let experimentResults = [
        "CREATE TABLE flag_event_experiments (experiment TEXT COLLATE \"C\" PRIMARY KEY, state TEXT NOT NULL)",
        """
        CREATE TABLE flag_event_experiment_units (
            experiment TEXT COLLATE "C" NOT NULL,
            unit TEXT COLLATE "C" NOT NULL,
            arm TEXT NOT NULL,
            first_exposure BIGINT NOT NULL,
            reassigned BOOLEAN NOT NULL,
            metric_values TEXT NOT NULL,
            PRIMARY KEY (experiment, unit)
        )
        """,
        "CREATE INDEX flag_event_exposures_by_batch ON flag_event_exposures (batch)",
        "CREATE INDEX flag_event_tracked_by_batch ON flag_event_tracked (batch)",
        "CREATE INDEX flag_event_tracked_by_unit ON flag_event_tracked (environment, unit) WHERE unit IS NOT NULL",
    ]
}
