import FlagEvaluation
import FlagServerModel
import Foundation
import Hummingbird

extension AdminRoutes {
    /// `POST /admin/v1/flags`: registers many flag definitions at once, atomically, without
    /// touching any environment's settings (what `flags push` sends).
    ///
    /// Each listed flag is created or replaced (type, variants, metadata and the code default);
    /// a new flag starts off in every environment on its `defaultVariant`. A flag with
    /// `"resetSettings": true` is also switched off on `defaultVariant`, its targeting dropped,
    /// in every environment where it exists (for a forced type change, where the old variants no
    /// longer apply). A flag with `"settings": {"<environment>": {"enabled", "defaultVariant"}}`
    /// is also switched on or off and given that default variant there, keeping its targeting
    /// (what `flags push --settings` asks for). Flags not listed are left alone. The answer lists the changes (computed
    /// from the state before the write); with `dryRun=true` it also lists the problems the
    /// write would be refused for, and nothing is written.
    func registerDefinitionRoutes(on group: RouterGroup<BasicRequestContext>) {
        group.post("/flags") { request, _ in
            let token = try authenticator.authorize(request, role: .admin, environment: Self.all)
            let body = try await JSONBody.decode(
                AdminRequests.RegisterFlags.self, from: request, limit: limits.maximumImportBytes)
            let dryRun = request.uri.queryParameters["dryRun"] == "true"
            var problems: [ValidationError] = []
            var seen: Set<String> = []
            for (index, flag) in body.flags.enumerated() {
                if !seen.insert(flag.key).inserted {
                    problems.append(ValidationError(key: flag.key, field: "flags[\(index)].key", problem: "listed twice"))
                }
                if flag.variants[flag.defaultVariant] == nil {
                    problems.append(ValidationError(
                        key: flag.key, field: "flags[\(index)].defaultVariant",
                        problem: "\"\(flag.defaultVariant)\" is not one of the variants (\(flag.variants.keys.sorted().joined(separator: ", ")))"))
                }
            }
            guard problems.isEmpty else { throw APIError(AdminError.invalid(problems)) }
            let makeChanges: @Sendable (ServerState) -> [StateChange] = { state in
                body.flags.flatMap { flag -> [StateChange] in
                    let record = FlagRecord(
                        key: flag.key, type: flag.type, variants: flag.variants, metadata: flag.metadata ?? FlagRecordMetadata(),
                        defaultVariant: flag.defaultVariant)
                    let initial = FlagSettings(enabled: false, defaultVariant: flag.defaultVariant)
                    var changes: [StateChange] = [.putFlag(record, initialSettings: initial)]
                    if flag.resetSettings == true {
                        for environment in state.environments.keys.sorted() {
                            changes.append(.putSettings(environment: environment, flag: flag.key, initial))
                        }
                    }
                    for (environment, settings) in (flag.settings ?? [:]).sorted(by: { $0.key < $1.key }) {
                        let targeting = flag.resetSettings == true
                            ? nil : state.environments[environment]?.settings[flag.key]?.targeting
                        changes.append(.putSettings(
                            environment: environment, flag: flag.key,
                            FlagSettings(enabled: settings.enabled, defaultVariant: settings.defaultVariant, targeting: targeting)))
                    }
                    return changes
                }
            }
            let state = await admin.state
            let planned: [AuditDraft]
            let planProblems: [ValidationError]
            do {
                let transition = try state.transition(applying: makeChanges(state))
                planned = transition.audit
                planProblems = StateValidator.problems(
                    in: transition.state, changedBy: transition.delta, missingVariants: .addedSince(state))
            } catch let error as StoreError {
                throw APIError(AdminError(store: error))
            }
            if dryRun {
                return AdminResponses.ImportResult(dryRun: true, changes: planned, problems: planProblems, revisions: [:]).response()
            }
            do {
                let revisions = try await admin.write(
                    actor: "token \(token.name) (\(token.id))", reason: body.reason ?? "register \(body.flags.count) flags"
                ) { state in makeChanges(state) }
                return AdminResponses.ImportResult(dryRun: false, changes: planned, problems: [], revisions: revisions).response()
            } catch let error as AdminError {
                throw APIError(error)
            }
        }
    }
}
