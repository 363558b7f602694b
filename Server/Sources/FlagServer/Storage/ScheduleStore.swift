import FlagServerModel
public import Foundation

/// Where scheduled changes are kept (see `Server/Docs/ScheduledChanges.md`). The schema is
/// created by ``FlagStore/migrate()`` (migration 8). Every implementation passes
/// `ScheduleStoreCompatibilityTests`.
public protocol ScheduleStore: Sendable {
    /// Stores a new scheduled change and appends `audit`, in one transaction.
    ///
    /// - Throws: ``StoreError/conflict(_:)`` if one with its id exists.
    func insertSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError)

    /// The scheduled change `id`, if it exists.
    func schedule(id: String) async throws(StoreError) -> ScheduledChange?

    /// The scheduled changes of `environment` (of `flag` only, when given) whose time is in
    /// `from..<to` (either end open when `nil`), soonest first, at most `limit`.
    func schedules(environment: String, flag: String?, from: Date?, to: Date?, limit: Int) async throws(StoreError) -> [ScheduledChange]

    /// The pending scheduled changes of every environment whose time is `time` or earlier,
    /// soonest first, at most `limit`.
    func dueSchedules(at time: Date, limit: Int) async throws(StoreError) -> [ScheduledChange]

    /// The earliest time of a pending scheduled change, if any.
    func nextScheduleTime() async throws(StoreError) -> Date?

    /// Replaces a scheduled change with `schedule`, whose ``ScheduledChange/version`` is one more
    /// than the stored one's, and appends `audit`, in one transaction. Two servers updating the
    /// same version at once leave one update and one conflict (this is how a run is claimed).
    ///
    /// - Throws: ``StoreError/conflict(_:)`` when the stored version is another;
    ///   ``StoreError/notFound(_:)`` when there is none.
    func updateSchedule(_ schedule: ScheduledChange, audit: AuditEntry?) async throws(StoreError)
}
