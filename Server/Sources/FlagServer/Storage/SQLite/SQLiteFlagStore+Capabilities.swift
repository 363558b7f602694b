extension SQLiteFlagStore {
    /// Every feature's store (one database file holds them all); no replication.
    public nonisolated var capabilities: StoreCapabilities { .all(self) }
}

extension SQLiteFlagEventStore {
    /// Every reading (experiment results, session health, rollout counts and attribution), from
    /// the same database.
    public nonisolated var capabilities: EventStoreCapabilities { .all(self) }
}
