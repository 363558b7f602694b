import FlagServerModel
import Foundation

extension ScheduledChangeExecutor {
    /// Turns every approved, open change request of a flag whose `applyAt` has come into a
    /// scheduled change that applies it (run by the same sweep): one per version of the request
    /// (its id is derived from the request's, so two servers doing this at once store one).
    /// A request edited after that (a new version, approved again) gets a new one.
    func scheduleApprovedChangeRequests(at time: Date) async {
        guard let approvalStore = admin.store.capabilities.approvals else { return }
        let state = await admin.state
        let rules: [String: ApprovalRule]
        do { rules = try await approvalStore.approvalRules() } catch { return }
        for environment in state.environments.keys.sorted() {
            let requests: [ChangeRequest]
            do { requests = try await approvalStore.changeRequests(environment: environment, limit: 100) } catch { continue }
            let required = rules[environment]?.requiredApprovals ?? 0
            for request in requests {
                guard request.status == .open, let applyAt = request.applyAt, applyAt <= time,
                    request.approvals.count >= required, let flag = request.proposal.flag
                else { continue }
                let id = Self.scheduleID(of: request)
                do { if try await store.schedule(id: id) != nil { continue } } catch { continue }
                let proposal = request.proposal
                var schedule = ScheduledChange(
                    id: id, environment: environment, flag: flag,
                    change: .init(patch: proposal.patch, settings: proposal.settings, definition: proposal.definition), runAt: applyAt,
                    basedOnRevision: request.basedOnRevision, actor: request.author.description, reason: request.reason,
                    changeRequest: request.id, createdAt: time)
                schedule.updatedAt = time
                let audit = await Schedules.auditEntry(
                    admin: admin, before: nil, after: schedule, actor: Self.actor,
                    reason: "change request \(request.id) is approved and due", at: time)
                do {
                    try await store.insertSchedule(schedule, audit: audit)
                    Schedules.notify(
                        admin: admin, .scheduleCreated, schedule, actor: Self.actor,
                        summary: "\(flag): approved change request \(request.id) is due in \(environment)", at: time)
                } catch {
                    // Another server stored it just now.
                    continue
                }
            }
        }
    }

    /// The scheduled change that applies `request` at its current version.
    static func scheduleID(of request: ChangeRequest) -> String { "sc-\(request.id)-v\(request.version)" }
}
