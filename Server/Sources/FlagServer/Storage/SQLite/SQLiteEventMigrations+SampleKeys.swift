extension SQLiteEventMigrations {
    /// Percentile metrics read a bounded sample of each arm's units: the units with the lowest
    /// sample key (``ExperimentResultsCounter/sampleKey(of:)``), by an index per experiment and
    /// arm. Units stored before this migration get their key when a percentile metric first reads
    /// them (``SQLiteExperimentSource/samples(limit:)``).
    static let experimentSampleKeys = [
        "ALTER TABLE flag_event_experiment_units ADD COLUMN sample_key INTEGER",
        "CREATE INDEX flag_event_experiment_units_by_sample_key ON flag_event_experiment_units (experiment, arm, sample_key, unit)",
    ]
}
