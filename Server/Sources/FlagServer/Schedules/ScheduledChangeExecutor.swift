import FlagEvaluation
import FlagServerModel
public import Foundation
public import Logging
public import ServiceLifecycle

/// Runs scheduled changes at their time, each exactly once across every server of a database
/// (see `Server/Docs/ScheduledChanges.md`).
///
/// A server claims a due change by storing it with a lease (its name and an expiry) through the
/// store's compare-and-set on the change's version: of two servers claiming the same version,
/// one wins and the other gets a conflict and leaves it. The lease outlasts the write's time
/// limit (``FlagAdmin/writeTimeout``, past which a write is rolled back and never committed
/// later), so a server that takes over an expired lease knows the first server's write either
/// committed (then the audit holds it, under the change's reason, and the change is recorded as
/// run) or never will.
///
/// A due change is applied through ``FlagAdmin/write(actor:reason:revert:approval:timeout:_:)``
/// as the actor `scheduler`, and only while its flag is still at ``ScheduledChange/basedOnRevision``
/// (else it is held). A change more than ``grace`` overdue when a server first sees it (every
/// server was down at its time) is not applied: it is marked missed.
public struct ScheduledChangeExecutor: Service {
    /// The write path the due changes go through.
    public let admin: FlagAdmin
    /// Where scheduled changes are kept and claimed.
    public let store: any ScheduleStore
    /// How long after its time a change still runs; later it is missed.
    public let grace: TimeInterval
    /// How often the executor looks for changes made by other servers, at the longest.
    public let poll: Duration
    /// This server's name in leases.
    public let server: String
    let now: @Sendable () -> Date
    let logger: Logger

    /// The actor of the writes the executor makes.
    public static let actor = "scheduler"
    /// The default ``grace``: an hour.
    public static let defaultGrace: TimeInterval = 3600
    /// The most changes one sweep runs.
    static let sweepLimit = 100

    /// An executor that looks for due changes every `poll` (and at the next due time), runs those at
    /// most `grace` overdue (seconds; later ones are missed), and names itself `server` in its claims.
    public init(
        admin: FlagAdmin, store: any ScheduleStore, grace: TimeInterval = ScheduledChangeExecutor.defaultGrace,
        poll: Duration = .seconds(10), server: String = "server-" + UUID().uuidString.prefix(8).lowercased(),
        now: @escaping @Sendable () -> Date = Date.init, logger: Logger = Logger(label: "flag-server.schedules")
    ) {
        self.admin = admin
        self.store = store
        self.grace = grace
        self.poll = poll
        self.server = server
        self.now = now
        self.logger = logger
    }

    /// How long a claim holds: longer than any write may take (it is rolled back past
    /// ``FlagAdmin/writeTimeout``), with a margin for the bookkeeping around it.
    var lease: TimeInterval {
        let components = admin.writeTimeout.components
        return 2 * (Double(components.seconds) + Double(components.attoseconds) / 1e18) + 30
    }

    /// Runs due changes, waking at the next due time or after `poll`, until a graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                // Wake at the next due time, or after `poll` for changes other servers made.
                var pause = poll
                if let next = try? await store.nextScheduleTime() {
                    let untilNext = next.timeIntervalSince(now())
                    if untilNext < 0 { pause = .milliseconds(200) } else if untilNext < Self.seconds(poll) { pause = .milliseconds(Int64(untilNext * 1000) + 1) }
                }
                do { try await Task.sleep(for: pause) } catch { break }
            }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Runs every change due now (and turns approved change requests whose `applyAt` passed into
    /// changes first). Returns the changes it settled, as stored.
    @discardableResult
    public func sweep() async -> [ScheduledChange] {
        let time = now()
        await scheduleApprovedChangeRequests(at: time)
        let due: [ScheduledChange]
        do { due = try await store.dueSchedules(at: time, limit: Self.sweepLimit) } catch {
            logger.warning("reading the due scheduled changes failed", metadata: ["error": "\(error)"])
            return []
        }
        var settled: [ScheduledChange] = []
        for schedule in due where (schedule.claimedUntil ?? .distantPast) <= time {
            if let done = await execute(schedule, at: time) { settled.append(done) }
        }
        return settled
    }

    /// Claims `schedule` and runs it; `nil` when another server has it or it stays pending.
    private func execute(_ schedule: ScheduledChange, at time: Date) async -> ScheduledChange? {
        var claimed = schedule
        claimed.claimedBy = server
        claimed.claimedUntil = time.addingTimeInterval(lease)
        claimed.version += 1
        claimed.updatedAt = time
        do { try await store.updateSchedule(claimed, audit: nil) } catch {
            // A conflict: another server claimed it (or someone edited or cancelled it) just now.
            logger.debug("scheduled change not claimed", metadata: ["id": "\(schedule.id)", "error": "\(error)"])
            return nil
        }
        let takenOver = schedule.claimedBy != nil
        do {
            if takenOver, let revision = try await earlierRun(of: schedule) {
                return await finish(claimed, .ran, revision: revision, outcome: "run by a server that stopped before recording it", at: time)
            }
            let overdue = time.timeIntervalSince(schedule.runAt)
            if overdue > grace {
                return await finish(
                    claimed, .missed,
                    outcome: "its time \(schedule.runAt.formatted(.iso8601)) passed \(Int(overdue)) s before a server ran it, more than the grace period of \(Int(grace)) s",
                    at: time)
            }
            if let request = schedule.changeRequest { return try await applyChangeRequest(request, claimed, at: time) }
            return try await apply(claimed, at: time)
        } catch .unavailable(let message) {
            // The database or the write lock is busy: leave it pending for the next sweep.
            logger.warning("scheduled change not run now", metadata: ["id": "\(schedule.id)", "error": "\(message)"])
            var released = claimed
            released.claimedBy = nil
            released.claimedUntil = nil
            released.version += 1
            try? await store.updateSchedule(released, audit: nil)
            return nil
        } catch {
            return await finish(claimed, .failed, outcome: "\(error)", at: time)
        }
    }

    /// Applies a direct scheduled change, only while its flag is at the revision it is based on.
    private func apply(_ schedule: ScheduledChange, at time: Date) async throws(AdminError) -> ScheduledChange? {
        let environment = schedule.environment, flag = schedule.flag
        let current = try await Schedules.revision(of: flag, in: environment, store: admin.store)
        guard current == schedule.basedOnRevision else {
            return await finish(
                schedule, .held,
                outcome: "flag \"\(flag)\" changed at revision \(current) of \(environment) after the change was scheduled at revision \(schedule.basedOnRevision): it was not applied; schedule it again on the current state",
                at: time)
        }
        // The flag as it was when checked: a write that slips in before this one is caught here.
        let state = await admin.state
        let expected = (state.flags[flag], state.environments[environment]?.settings[flag])
        let proposal = schedule.proposal
        let moved = "flag \"\(flag)\" changed while the scheduled change was about to run: it was not applied; schedule it again on the current state"
        let revisions: [String: Int]
        do {
            revisions = try await admin.write(actor: Self.actor, reason: schedule.auditReason) { state throws(AdminError) in
                guard state.flags[flag] == expected.0, state.environments[environment]?.settings[flag] == expected.1 else {
                    throw .conflict(moved)
                }
                return try proposal.changes(in: environment, of: state)
            }
        } catch .conflict(let message) where message == moved {
            return await finish(schedule, .held, outcome: moved, at: time)
        }
        return await finish(schedule, .ran, revision: revisions[environment], outcome: revisions.isEmpty ? "it changed nothing" : nil, at: time)
    }

    /// Applies the approved change request `id` through ``Approvals/apply(id:environment:by:actor:)``,
    /// which checks its approvals and that its subject is still at the approved revision.
    private func applyChangeRequest(_ id: String, _ schedule: ScheduledChange, at time: Date) async throws(AdminError) -> ScheduledChange? {
        guard let approvalStore = admin.store.capabilities.approvals else { throw .internalFailure("this server's store keeps no change requests") }
        let approvals = Approvals(admin: admin, store: approvalStore, now: now)
        do {
            let applied = try await approvals.apply(
                id: id, environment: schedule.environment, by: ApprovalIdentity(kind: .server, name: Self.actor), actor: Self.actor)
            return await finish(schedule, .ran, revision: applied.appliedRevision, outcome: nil, at: time)
        } catch .approvalRequired(let message) {
            return await finish(schedule, .held, outcome: message, at: time)
        } catch .conflict(let message) {
            return await finish(schedule, .held, outcome: message, at: time)
        }
    }

    /// The revision a run of `schedule` produced before, if an earlier claimant committed it.
    private func earlierRun(of schedule: ScheduledChange) async throws(AdminError) -> Int? {
        if let id = schedule.changeRequest, let approvalStore = admin.store.capabilities.approvals {
            let request: ChangeRequest?
            do { request = try await approvalStore.changeRequest(id: id) } catch { throw AdminError(store: error) }
            return request?.status == .applied ? request?.appliedRevision : nil
        }
        do {
            let entries = try await admin.store.audit(environment: schedule.environment, key: schedule.flag, limit: 100)
            return entries.first { $0.subject == .flag && $0.reason == schedule.auditReason }?.revision
        } catch {
            throw AdminError(store: error)
        }
    }

    /// Records how a claimed change ended (audited and announced), releasing the claim.
    private func finish(
        _ schedule: ScheduledChange, _ status: ScheduledChange.Status, revision: Int? = nil, outcome: String?, at time: Date
    ) async -> ScheduledChange? {
        var done = schedule
        done.status = status
        done.revision = revision
        done.outcome = outcome
        done.claimedBy = nil
        done.claimedUntil = nil
        done.version += 1
        done.updatedAt = time
        let before = schedule
        let audit = await Schedules.auditEntry(
            admin: admin, before: before, after: done, actor: Self.actor, reason: outcome ?? status.rawValue, at: time)
        do { try await store.updateSchedule(done, audit: audit) } catch {
            logger.error(
                "recording a scheduled change's end failed; another server records it after the lease",
                metadata: ["id": "\(schedule.id)", "status": "\(status.rawValue)", "error": "\(error)"])
            return nil
        }
        let kind: ServerNotification.Kind
        let summary: String
        switch status {
        case .ran:
            kind = .scheduleRan
            summary = "\(done.flag): scheduled change \(done.id) ran in \(done.environment)" + (revision.map { " (revision \($0))" } ?? "")
        case .held:
            kind = .scheduleHeld
            summary = "\(done.flag): scheduled change \(done.id) held in \(done.environment): \(outcome ?? "")"
        case .missed:
            kind = .scheduleMissed
            summary = "\(done.flag): scheduled change \(done.id) missed in \(done.environment): \(outcome ?? "")"
        case .failed:
            kind = .scheduleFailed
            summary = "\(done.flag): scheduled change \(done.id) failed in \(done.environment): \(outcome ?? "")"
        case .pending, .cancelled:
            return done
        }
        Schedules.notify(admin: admin, kind, done, actor: Self.actor, summary: summary, at: time)
        if status != .ran { logger.warning("scheduled change not applied", metadata: ["id": "\(done.id)", "status": "\(status.rawValue)", "outcome": "\(outcome ?? "")"]) }
        return done
    }
}
