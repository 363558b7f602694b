/// The PostgreSQL schema, as numbered migrations applied in order and recorded in
/// `schema_migrations`. The same tables as SQLite (``SQLiteMigrations``), in PostgreSQL types.
///
/// Append a migration to change the schema; never edit one that has shipped.
enum PostgresMigrations {
    static let all: [(version: Int, statements: [String])] = [
        (
            1,
            [
                "CREATE TABLE environments (key TEXT PRIMARY KEY, revision BIGINT NOT NULL)",
                "CREATE TABLE flags (key TEXT PRIMARY KEY, document TEXT NOT NULL)",
                """
                CREATE TABLE flag_settings (
                    environment TEXT NOT NULL REFERENCES environments(key),
                    flag TEXT NOT NULL,
                    document TEXT NOT NULL,
                    PRIMARY KEY (environment, flag)
                )
                """,
                """
                CREATE TABLE segments (
                    environment TEXT NOT NULL REFERENCES environments(key),
                    key TEXT NOT NULL,
                    rule TEXT NOT NULL,
                    PRIMARY KEY (environment, key)
                )
                """,
                """
                CREATE TABLE revisions (
                    environment TEXT NOT NULL REFERENCES environments(key),
                    revision BIGINT NOT NULL,
                    time DOUBLE PRECISION NOT NULL,
                    actor TEXT NOT NULL,
                    reason TEXT,
                    PRIMARY KEY (environment, revision)
                )
                """,
                """
                CREATE TABLE audit (
                    id BIGSERIAL PRIMARY KEY,
                    environment TEXT NOT NULL,
                    revision BIGINT NOT NULL,
                    time DOUBLE PRECISION NOT NULL,
                    actor TEXT NOT NULL,
                    reason TEXT,
                    subject TEXT NOT NULL,
                    key TEXT NOT NULL,
                    before TEXT,
                    after TEXT
                )
                """,
                "CREATE INDEX audit_by_key ON audit (environment, key, revision)",
                """
                CREATE TABLE tokens (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    role TEXT NOT NULL,
                    digest TEXT NOT NULL UNIQUE,
                    created_at DOUBLE PRECISION NOT NULL,
                    revoked_at DOUBLE PRECISION
                )
                """,
            ]
        ),
        (
            2,
            [
                // The console's users and sessions (``ConsoleAccountStore``). `user` is a reserved
                // word in PostgreSQL, hence `user_name`.
                """
                CREATE TABLE console_users (
                    name TEXT PRIMARY KEY,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
                """
                CREATE TABLE console_sessions (
                    digest TEXT PRIMARY KEY,
                    user_name TEXT NOT NULL REFERENCES console_users(name),
                    created_at DOUBLE PRECISION NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
            ]
        ),
        (
            3,
            [
                // As SQLite's migration 3: reverts, the environments' order, disabled users.
                "ALTER TABLE audit ADD COLUMN reverted_to BIGINT",
                "ALTER TABLE environments ADD COLUMN position BIGINT NOT NULL DEFAULT 0",
                "UPDATE environments SET position = CASE key WHEN 'development' THEN 0 WHEN 'staging' THEN 1 WHEN 'production' THEN 2 ELSE 3 END",
                "ALTER TABLE console_users ADD COLUMN disabled_at DOUBLE PRECISION",
            ]
        ),
        (
            4,
            [
                // Set once the first start's secrets were shown (FlagServer.start). A database
                // bootstrapped before this table existed had them shown: it starts finished.
                "CREATE TABLE bootstrap (id INTEGER PRIMARY KEY, finished_at DOUBLE PRECISION NOT NULL)",
                "INSERT INTO bootstrap (id, finished_at) SELECT 1, 0 WHERE EXISTS (SELECT 1 FROM environments)",
            ]
        ),
        (
            5,
            [
                // Approval rules per environment and change requests (Server/Docs/Approvals.md).
                """
                CREATE TABLE approval_rules (
                    environment TEXT PRIMARY KEY NOT NULL,
                    required_approvals BIGINT NOT NULL,
                    applies_to TEXT NOT NULL
                )
                """,
                // A change request is one JSON document; `version` makes updates compare-and-set.
                """
                CREATE TABLE change_requests (
                    id TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    status TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    version BIGINT NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                "CREATE INDEX change_requests_by_environment ON change_requests (environment, created_at)",
            ]
        ),
        (
            6,
            [
                // Experiments and their metrics (Server/Docs/Experiments.md): one JSON document per
                // row; `version` makes updates compare-and-set.
                "CREATE TABLE experiment_metrics (key TEXT PRIMARY KEY NOT NULL, version BIGINT NOT NULL, document TEXT NOT NULL)",
                """
                CREATE TABLE experiments (
                    id TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    status TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    version BIGINT NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                "CREATE INDEX experiments_by_environment ON experiments (environment, created_at)",
                "CREATE INDEX experiments_by_status ON experiments (status)",
            ]
        ),
        (
            7,
            [
                // Webhook endpoints (Server/Docs/Webhooks.md). The secret signs deliveries, so it is
                // kept as it is (not hashed); the rest is one JSON document.
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY NOT NULL,
                    secret TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                // The delivery queue and log: one JSON document per delivery, with the columns the
                // dispatcher selects on.
                """
                CREATE TABLE webhook_deliveries (
                    id TEXT PRIMARY KEY NOT NULL,
                    endpoint TEXT NOT NULL,
                    status TEXT NOT NULL,
                    next_attempt_at DOUBLE PRECISION,
                    created_at DOUBLE PRECISION NOT NULL,
                    updated_at DOUBLE PRECISION NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)",
                "CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint, created_at)",
            ]
        ),
        (
            8,
            [
                // Scheduled changes (Server/Docs/ScheduledChanges.md): one JSON document per
                // change; `version` makes updates (and a server's claim of a run) compare-and-set.
                """
                CREATE TABLE scheduled_changes (
                    id TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    status TEXT NOT NULL,
                    run_at DOUBLE PRECISION NOT NULL,
                    version BIGINT NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                "CREATE INDEX scheduled_changes_by_environment ON scheduled_changes (environment, run_at)",
                "CREATE INDEX scheduled_changes_due ON scheduled_changes (status, run_at)",
            ]
        ),
        (
            9,
            [
                // Rollout plans and templates (Server/Docs/Rollouts.md): one JSON document each;
                // `version` makes updates compare-and-set.
                """
                CREATE TABLE rollout_plans (
                    id TEXT PRIMARY KEY NOT NULL,
                    environment TEXT NOT NULL,
                    flag TEXT NOT NULL,
                    status TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    version BIGINT NOT NULL,
                    document TEXT NOT NULL
                )
                """,
                "CREATE INDEX rollout_plans_by_flag ON rollout_plans (environment, flag, created_at)",
                "CREATE INDEX rollout_plans_by_status ON rollout_plans (status)",
                """
                CREATE TABLE rollout_templates (
                    name TEXT PRIMARY KEY NOT NULL,
                    version BIGINT NOT NULL,
                    document TEXT NOT NULL
                )
                """,
            ]
        ),
    ]
}
