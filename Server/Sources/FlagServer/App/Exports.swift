// The model types (flag records and server state, changes, audit entries, approvals, schedules,
// webhooks, experiments and metrics, rollout plans, event batches, store errors…) live in
// FlagServerModel, a module below this one. The FlagServer library's public API names them (the
// `FlagStore` protocol, `FlagAdmin`'s writes), so a client of the `FlagServer` product (the
// `flag-server` executable, the fuzz targets in `Fuzz/`) sees them through `import FlagServer` as
// before. The re-export goes one way: FlagServerModel cannot import this module, and the files of
// this module import FlagServerModel each for themselves.
@_exported import FlagServerModel
