import FlagEvaluation
import FlagServerModel

// The proposal's changes and diff need the admin API's request bodies and the state validator
// (FlagServer), so they stay in this module while the proposal is a model type (FlagServerModel).
extension ChangeRequest.Proposal {
    /// The state changes the proposal makes in `environment` of `state` (none for a rule).
    func changes(in environment: String, of state: ServerState) throws(AdminError) -> [StateChange] {
        guard let (kind, key) = subject(in: environment) else {
            throw .badRequest(
                "change: propose one thing: a flag with settings, patch or definition; a segment with rule or \"delete\": true; or approvalRule or \"removeApprovalRule\": true")
        }
        guard state.environments[environment] != nil else { throw .notFound("environment \"\(environment)\" does not exist") }
        switch kind {
        case .flag:
            if let definition {
                let body: AdminRequests.PutFlag
                do { body = try definition.decoded(as: AdminRequests.PutFlag.self) } catch {
                    throw .badRequest("change.definition: not a flag definition (type, variants, metadata, defaultVariant)")
                }
                return [body.change(key: key, current: state.flags[key])]
            }
            guard let current = state.environments[environment]?.settings[key] else {
                throw .notFound("flag \"\(key)\" does not exist in environment \"\(environment)\"")
            }
            if let settings { return [.putSettings(environment: environment, flag: key, settings)] }
            let body: SettingsPatch
            do { body = try (patch ?? .object([:])).decoded(as: SettingsPatch.self) } catch {
                throw .badRequest("change.patch: a merge patch of settings is an object")
            }
            return [.putSettings(environment: environment, flag: key, try body.applied(to: current))]
        case .segment:
            if let rule { return [.putSegment(environment: environment, key: key, rule: rule)] }
            return [.deleteSegment(environment: environment, key: key)]
        case .environment, .user, .approvalRule, .webhook, .schedule:
            return []
        }
    }

    /// The exact change the proposal makes to `state` (and to `rule`, the environment's rule).
    func diff(in environment: String, of state: ServerState, rule: ApprovalRule?) throws(AdminError) -> [ChangeRequest.Difference] {
        if approvalRule != nil || removeApprovalRule == true {
            guard subject(in: environment) != nil else { _ = try changes(in: environment, of: state); return [] }
            if let approvalRule, let problem = approvalRule.problem { throw .badRequest("change.approvalRule." + problem) }
            let after = removeApprovalRule == true ? nil : approvalRule
            return [.init(
                environment: environment, subject: .approvalRule, key: environment, before: rule.map { JSONValue(encoding: $0) },
                after: after.map { JSONValue(encoding: $0) })]
        }
        let changes = try changes(in: environment, of: state)
        let transition: StateTransition
        do { transition = try state.transition(applying: changes) } catch { throw AdminError(store: error) }
        let problems = StateValidator.problems(in: transition.state, changedBy: transition.delta, missingVariants: .addedSince(state))
        guard problems.isEmpty else { throw .invalid(problems) }
        return transition.audit.map {
            .init(environment: $0.environment, subject: $0.subject, key: $0.key, before: $0.before, after: $0.after)
        }
    }
}
