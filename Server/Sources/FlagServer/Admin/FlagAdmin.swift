import FlagEvaluation
import FlagServerModel
public import Foundation
import Logging
import Prometheus

/// The one write path: every change is validated as the state it produces (what it touched and
/// what depends on that), committed as a revision with its audit, then applied to the state in
/// memory, compiled (the touched flags only), published and announced.
public actor FlagAdmin {
    /// Where every write is committed.
    nonisolated public let store: any FlagStore
    /// The compiled state every committed write is published to.
    public let publisher: StatePublisher
    /// The event streams told of every committed revision.
    public let events: EventHub
    /// Where committed facts are announced (webhooks); see ``ServerNotification``.
    nonisolated public let notifications: any NotificationSink
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let writes: Counter?
    /// Writes one at a time: the actor is reentrant while a write awaits the store.
    private let writing = AsyncLock()
    /// The state as last loaded from the store, with every write of this admin applied since.
    public private(set) var state = ServerState()

    /// How long a write may take, waiting for the write lock and the database included, before it
    /// fails with ``AdminError/unavailable(_:)``; the store rolls back a write past it, so a write
    /// whose caller was told it failed is never committed later.
    public nonisolated let writeTimeout: Duration

    /// The write path over `store`; a write not committed within `writeTimeout` fails and is never
    /// committed later, and committed facts go to `notifications`. `metrics` gets the committed-writes
    /// counter (`nil`: none); `now` reads the clock (injected by tests).
    public init(
        store: any FlagStore, publisher: StatePublisher, events: EventHub, metrics: PrometheusCollectorRegistry? = nil,
        logger: Logger = Logger(label: "flag-server.admin"), now: @escaping @Sendable () -> Date = Date.init,
        writeTimeout: Duration = .seconds(10), notifications: any NotificationSink = DiscardingNotificationSink()
    ) {
        self.notifications = notifications
        self.writeTimeout = writeTimeout
        self.store = store
        self.publisher = publisher
        self.events = events
        self.logger = logger
        self.now = now
        writes = metrics?.makeCounter(descriptor: .named("flag_server_revisions_total", help: "Committed writes."))
    }

    /// Reloads everything from the store, publishes it, and announces environments whose
    /// revision changed.
    /// Call it from a write holding the write lock, or at start.
    public func reload() async throws(StoreError) {
        state = try await store.load()
        // When each new revision was committed (one short read per environment that changed).
        let served = publisher.current.environments
        var modified: [String: Date] = [:]
        for (key, environment) in state.environments where served[key]?.revision != environment.revision {
            modified[key] = try await store.revisions(environment: key, limit: 1).first?.time
        }
        let changed = publisher.publish(state, tokens: try await store.tokens(), modified: modified)
        FreedMemory.release()
        for environment in changed {
            events.publish(environment: environment, revision: state.environments[environment]?.revision ?? 0)
        }
    }

    /// Makes a committed transition the current state (with the revisions the store gave it),
    /// publishes it, recompiling only the touched flags of the changed environments, and
    /// announces the changed environments: no read from the store.
    private func apply(_ transition: StateTransition, revisions: [String: Int], at time: Date) {
        var next = transition.state
        for (key, revision) in revisions { next.environments[key]?.revision = revision }
        state = next
        let changed = publisher.publish(next, delta: transition.delta, modified: revisions.mapValues { _ in time })
        // A large write (an import) freed a lot; a small one leaves nothing worth a trim.
        if transition.delta.flags.count > 256 { FreedMemory.release() }
        for environment in changed {
            events.publish(environment: environment, revision: next.environments[environment]?.revision ?? 0)
        }
    }

    /// Catches up with the store between writes: a replica catching up with another replica's
    /// commits. On a ``ReplicatedFlagStore`` it reads the audit entries of the revisions it has
    /// not served and applies them (each holds the subject's new state), recompiling only what
    /// they touched; it reloads everything when that is not possible (an environment created,
    /// more than ``catchUpEntryLimit`` entries in an environment, a revision without entries).
    ///
    /// - Parameter version: The stored version, when the caller just read it.
    public func refresh(knowing version: StoreVersion? = nil) async throws(StoreError) {
        await writing.lock()
        defer { writing.unlock() }
        if let replicated = store.capabilities.replicated, try await catchUpFromAudit(replicated, version: version) { return }
        try await reload()
    }

    /// Most audit entries of one environment that ``refresh()`` applies; past it, it reloads.
    public static let catchUpEntryLimit = 2048

    /// Applies the audit entries of the stored revisions newer than the served ones; `false` when
    /// they cannot give the stored state (the caller reloads then).
    private func catchUpFromAudit(_ replicated: any ReplicatedFlagStore, version: StoreVersion?) async throws(StoreError) -> Bool {
        let known = version
        let version: StoreVersion
        if let known { version = known } else { version = try await replicated.currentVersion() }
        guard Set(version.revisions.keys) == Set(state.environments.keys) else { return false }
        var next = state
        var delta = StateDelta()
        var modified: [String: Date] = [:]
        for (key, stored) in version.revisions.sorted(by: { $0.key < $1.key }) {
            let served = state.environments[key]?.revision ?? 0
            guard stored >= served else { return false }
            guard stored > served else { continue }
            let page = try await store.audit(environment: key, key: nil, limit: Self.catchUpEntryLimit)
            // Newest first: the page must reach back past the served revision.
            guard page.count < Self.catchUpEntryLimit || (page.last?.revision ?? 0) <= served else { return false }
            let entries = page.filter { $0.revision > served && $0.revision <= stored }.reversed()
            guard Set(entries.map(\.revision)) == Set((served + 1)...stored) else { return false }
            for entry in entries {
                switch entry.subject {
                case .flag:
                    if let after = entry.after {
                        guard let flag = try? after["flag"]?.decoded(as: FlagRecord.self),
                            let settings = try? after["settings"]?.decoded(as: FlagSettings.self)
                        else { return false }
                        next.flags[entry.key] = flag
                        next.environments[key]?.settings[entry.key] = settings
                    } else {
                        // A deleted flag has an entry in every environment.
                        next.flags[entry.key] = nil
                        next.environments[key]?.settings[entry.key] = nil
                    }
                    delta.flags.insert(entry.key)
                    delta.settings[key, default: []].insert(entry.key)
                case .segment:
                    next.environments[key]?.segments[entry.key] = entry.after
                    delta.segments[key, default: []].insert(entry.key)
                case .environment:
                    guard let position = entry.after?["position"]?.intValue else { return false }
                    next.environments[key]?.position = position
                    delta.environments.insert(key)
                case .user, .approvalRule, .webhook, .schedule:
                    continue
                }
            }
            next.environments[key]?.revision = stored
            modified[key] = entries.last?.time
        }
        state = next
        let changed = publisher.publish(next, delta: delta, modified: modified, tokens: try await store.tokens())
        if delta.flags.count > 256 { FreedMemory.release() }
        for environment in changed {
            events.publish(environment: environment, revision: next.environments[environment]?.revision ?? 0)
        }
        return true
    }

    /// Computes changes from the current state with `makeChanges`, validates and commits them.
    ///
    /// If another writer (a replica) committed in between, the state is reloaded and
    /// `makeChanges` runs again on it, as often as ``writeTimeout`` allows: concurrent writers
    /// of one environment wait for each other instead of failing.
    ///
    /// - Parameters:
    ///   - revert: Set when the write is a revert, so that the audit records it as one.
    ///   - approval: How the write stands with the environments' approval rules: a direct write
    ///     (the default) is refused where a rule covers it, on every path alike (API, console,
    ///     import, copy, revert, push); only the kill switch and approved change requests pass.
    ///   - timeout: The write's time limit, if not ``writeTimeout``.
    ///   - exempting: The running experiment whose own action this write is (shipping it): the
    ///     allocation guard lets it change that experiment's allocation. Every other write that
    ///     would change a running experiment's allocation is refused (``ExperimentGuard``).
    ///   - importedEnvironment: The environment an import writes: there, a targeting rule
    ///     returning a variant its flag lacks is accepted (the import answers it as a warning, as
    ///     flagd loads such a file). Elsewhere, and for every other write, a write may not add
    ///     one; one the state already has does not refuse it.
    /// - Returns: The new revisions of the environments that changed (empty if nothing changed).
    /// - Throws: ``AdminError`` for a refused write (``AdminError/approvalRequired(_:)`` where an
    ///   approval rule covers it); ``AdminError/unavailable(_:)`` when the
    ///   database is unreachable or the write did not commit within ``writeTimeout``. The stored
    ///   state is unchanged then.
    @discardableResult
    public func write(
        actor: String, reason: String?, revert: ChangeSet.Revert? = nil, approval: WriteApproval = .required,
        timeout: Duration? = nil, exempting experiment: String? = nil, importedEnvironment: String? = nil,
        _ makeChanges: @Sendable (ServerState) throws(AdminError) -> [StateChange]
    ) async throws(AdminError) -> [String: Int] {
        let writeTimeout = timeout ?? self.writeTimeout
        let deadline = ContinuousClock.now + writeTimeout
        guard await writing.lock(before: deadline) else {
            throw .unavailable("the write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        var attempts = 0
        while true {
            attempts += 1
            let changes = try makeChanges(state)
            var transition: StateTransition
            do {
                transition = try state.transition(applying: changes)
            } catch {
                throw AdminError(store: error)
            }
            guard !transition.audit.isEmpty else { return [:] }
            // The state before was valid: only what the changes touched can be wrong now.
            let problems = StateValidator.problems(
                in: transition.state, changedBy: transition.delta,
                missingVariants: importedEnvironment.map { .importedInto($0, elsewhereAddedSince: state) } ?? .addedSince(state))
            guard problems.isEmpty else { throw .invalid(problems) }
            try await checkApproval(approval, of: transition.audit)
            try await checkExperiments(transition.state, changedBy: transition.delta, exempting: experiment)
            do {
                let time = now()
                let revisions = try await store.commit(
                    ChangeSet(
                        actor: actor, reason: reason, changes: changes, basedOn: state.revisions, revert: revert,
                        deadline: deadline),
                    at: time)
                writes?.increment()
                logger.info("committed", metadata: ["actor": "\(actor)", "revisions": "\(revisions)"])
                announce(transition.audit, revisions: revisions, actor: actor, reason: reason, at: time)
                let predicted = Set(transition.audit.map(\.environment))
                // Written and announced: an import's thousands of drafts need not stay while it is published.
                transition.audit = []
                if Set(revisions.keys) == predicted {
                    apply(transition, revisions: revisions, at: time)
                } else {
                    // The store saw another change than this state predicts: read what it holds.
                    // Committed: a failing reload (the database went away just now) must not turn
                    // the answer into a failure; the replica synchronizer catches up later.
                    logger.warning("the committed revisions differ from the predicted ones; reloading")
                    do { try await reload() } catch { logger.warning("reload after a commit failed", metadata: ["error": "\(error)"]) }
                }
                return revisions
            } catch {
                guard case .staleRevision = error else { throw AdminError(store: error) }
                logger.notice("write based on a stale revision; reloading and retrying", metadata: ["attempt": "\(attempts)"])
                do { try await reload() } catch { throw AdminError(store: error) }
                guard ContinuousClock.now < deadline else {
                    throw .unavailable(
                        "other writers kept changing the state for \(writeTimeout) (\(attempts) attempts); nothing was written")
                }
            }
        }
    }

    /// Refuses a write that an approval rule covers, unless it is the kill switch (which may only
    /// turn flags off) or an approved change request. The rules are read from the store on every
    /// write (not cached), so that a rule set on another replica holds here at once.
    private func checkApproval(_ approval: WriteApproval, of drafts: [AuditDraft]) async throws(AdminError) {
        switch approval {
        case .changeRequest:
            return
        case .killSwitch:
            guard drafts.allSatisfy(ApprovalRule.isTurningOff) else {
                throw .badRequest("the kill switch only turns flags off (enabled: false, everything else kept)")
            }
            return
        case .required:
            break
        }
        guard let approvals = store.capabilities.approvals else { return }
        let rules: [String: ApprovalRule]
        do { rules = try await approvals.approvalRules() } catch { throw AdminError(store: error) }
        guard !rules.isEmpty else { return }
        for draft in drafts {
            guard let rule = rules[draft.environment] else { continue }
            let covered = ApprovalRule.scopes(of: draft).intersection(rule.appliesTo)
            guard let scope = covered.min() else { continue }
            let noun = draft.subject == .segment ? "segment" : "flag"
            var message = "environment \"\(draft.environment)\" needs \(rule.requiredApprovals) approval"
                + (rule.requiredApprovals == 1 ? "" : "s")
                + " for \(scope.rawValue) changes (\(noun) \"\(draft.key)\"): propose it as a change request"
                + " (POST /admin/v1/environments/\(draft.environment)/change-requests)"
            if draft.subject == .flag, scope == .settings {
                message += ", or turn the flag off at once with the kill switch (POST /admin/v1/environments/\(draft.environment)/flags/\(draft.key)/kill)"
            }
            throw .approvalRequired(message)
        }
    }

    /// Stores a new token and publishes it. Returns the token text, shown this once.
    ///
    /// - Throws: ``AdminError/badRequest(_:)`` for a client or server token for every
    ///   environment (`*`), which delivery would refuse; ``AdminError/notFound(_:)`` for an
    ///   unknown environment.
    public func createToken(name: String, environment: String, role: TokenRole) async throws(AdminError) -> (String, TokenRecord) {
        try Self.checkToken(environment: environment, role: role, in: state)
        let (token, record) = TokenIssuer.issue(name: name, environment: environment, role: role, at: now())
        guard await writing.lock(before: .now + writeTimeout) else {
            throw .unavailable("the token write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        do {
            try await store.insertToken(record)
            try await publishTokens()
        } catch {
            throw AdminError(store: error)
        }
        return (token, record)
    }

    /// Publishes the stored tokens beside the served environments (a token write changes no flag).
    private func publishTokens() async throws(StoreError) {
        publisher.publish(state, delta: StateDelta(), modified: [:], tokens: try await store.tokens())
    }

    /// Whether a token of `role` for `environment` can be used: delivery (client and server
    /// tokens) reads one environment, so only admin tokens may be for every environment (`*`).
    public static func checkToken(environment: String, role: TokenRole, in state: ServerState) throws(AdminError) {
        if environment == TokenIssuer.allEnvironments {
            guard role == .admin else {
                throw .badRequest(
                    "environment: a \(role.rawValue) token must be for one environment (delivery refuses \"*\"); only admin tokens may be for every environment")
            }
        } else if state.environments[environment] == nil {
            throw .notFound("environment \"\(environment)\" does not exist")
        }
    }

    /// Revokes a token; it stops working at once.
    public func revokeToken(id: String) async throws(AdminError) {
        guard await writing.lock(before: .now + writeTimeout) else {
            throw .unavailable("the token write waited \(writeTimeout) for earlier writes and did not start")
        }
        defer { writing.unlock() }
        do {
            try await store.revokeToken(id: id, at: now())
            try await publishTokens()
        } catch {
            throw AdminError(store: error)
        }
    }
}
