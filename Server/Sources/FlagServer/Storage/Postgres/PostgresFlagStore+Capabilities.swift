extension PostgresFlagStore {
    /// Every feature's store, shared by the replicas of one database.
    public var capabilities: StoreCapabilities { .all(self, replicated: self) }
}

extension PostgresFlagEventStore {
    /// Every reading (experiment results, session health, rollout counts and attribution), from
    /// the same database.
    public var capabilities: EventStoreCapabilities { .all(self) }
}
