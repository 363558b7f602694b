import Logging
import Observation
import Synchronization

/// Remote values: received from the configured provider, checked, held until a safe point when the
/// policy says so, and applied by republishing.
extension FlagEngine {
    /// Whether remote values are waiting for ``applyPendingRemoteValues()``.
    public var hasPendingRemoteValues: Bool {
        trackStatus()
        return state.withLock { $0.pendingRemote != nil }
    }

    /// The source of the remote values in effect (`"cache"`, `"app_config"`…), if any.
    public var remoteSource: String? {
        trackStatus()
        return state.withLock { $0.remote.count == 0 ? nil : $0.remote.source }
    }

    /// Applies remote values that arrived under the ``RemoteApplyPolicy/atSafePoint`` policy.
    /// Does nothing when none are waiting.
    public func applyPendingRemoteValues() {
        let applied = state.withLock { state -> Bool in
            guard let pending = state.pendingRemote else { return false }
            state.remote = pending
            state.pendingRemote = nil
            return true
        }
        guard applied else { return }
        republish()
        notifyStatus()
    }

    /// Asks the provider for fresh values and handles them by the apply policy. A failure is
    /// logged and recorded in ``diagnostics``; the last good values stay.
    public func refreshRemoteValues() async {
        guard let setup = state.withLock({ $0.setup }), let provider = setup.remoteProvider else { return }
        do {
            receive(try await provider.refresh(), policy: setup.remoteApplyPolicy, initial: false)
        } catch {
            report(
                FlagDiagnostic(
                    kind: .remoteProviderFailed,
                    message: "Refreshing remote flag values failed: \(Self.clause(error)). The last good values stay in effect."))
        }
    }

    /// An error's description without its final period, to go inside a sentence.
    static func clause(_ error: any Error) -> String {
        var text = "\(error)"
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// Hands remote values to the manager directly, as a provider's background refresh would.
    /// They take effect by the apply policy.
    public func receiveRemoteValues(_ values: RemoteFlagValues) {
        guard let policy = state.withLock({ $0.setup?.remoteApplyPolicy }) else { return }
        receive(values, policy: policy, initial: false)
    }

    func receive(_ values: RemoteFlagValues, policy: RemoteApplyPolicy, initial: Bool) {
        var diagnostics: [FlagDiagnostic] = []
        let checked = validated(values, diagnostics: &diagnostics)
        for diagnostic in diagnostics { report(diagnostic) }
        switch policy {
        case .immediately:
            let sourceChanged = state.withLock { state in
                defer { state.remote = checked }
                return (state.remote.count == 0 ? nil : state.remote.source)
                    != (checked.count == 0 ? nil : checked.source)
            }
            republish()
            if sourceChanged { notifyStatus() }
        case .atSafePoint:
            let pendingChanged = state.withLock { state in
                let wasPending = state.pendingRemote != nil
                state.pendingRemote = state.remote == checked ? nil : checked
                return wasPending != (state.pendingRemote != nil)
            }
            if pendingChanged { notifyStatus() }
        case .nextLaunch:
            break
        }
    }

    /// Keeps the values that fit the registry, by position; reports the rest by key.
    func validated(_ values: RemoteFlagValues, diagnostics: inout [FlagDiagnostic]) -> CheckedRemote {
        var checked = CheckedRemote.empty(count: registry.count)
        checked.source = values.source
        checked.unit = values.unit
        checked.revision = values.revision
        var ignored: [FlagDiagnostic] = []
        // Fields read in place (see `FlagDefinition.accepting(_:type:range:check:isSensitive:)`).
        registry.definitions.withUnsafeBufferPointer { definitions in
            for (key, remote) in values.values {
                guard let index = registry.index(ofKey: key) else {
                    ignored.append(
                        FlagDiagnostic(
                            kind: .ignoredRemoteValue, key: key,
                            message: "Ignored the \(values.source) value for '\(key)': there is no such flag."))
                    continue
                }
                let normalized: FlagValue
                let accepted = FlagDefinition.accepting(
                    remote.value, type: definitions[index].type, range: definitions[index].range,
                    check: definitions[index].check, isSensitive: definitions[index].isSensitive)
                switch accepted {
                case .success(let accepted):
                    normalized = accepted
                case .failure(let rejection):
                    ignored.append(
                        FlagDiagnostic(
                            kind: .ignoredRemoteValue, key: key,
                            message: "Ignored the \(values.source) value for '\(key)': \(rejection)."))
                    continue
                }
                var fitted = remote
                fitted.value = normalized
                checked.byIndex[index] = fitted
                checked.count += 1
            }
        }
        // Iterating unsorted and sorting only the problems (usually none) keeps their
        // order stable without sorting every key.
        diagnostics += ignored.sorted { ($0.key ?? "") < ($1.key ?? "") }
        return checked
    }

    /// Logs a warning through the configured logger (or the one given at creation).
    func warn(_ message: String, key: String? = nil) {
        let logger = state.withLock { $0.setup?.logger } ?? fallbackLogger
        logger.warning("\(message)", metadata: key.map { ["flag": "\($0)"] })
    }

    func report(_ diagnostic: FlagDiagnostic) {
        let logger = state.withLock { state in
            state.diagnostics.append(diagnostic)
            state.dropOldDiagnostics()
            return state.setup?.logger
        }
        (logger ?? fallbackLogger).warning(
            "\(diagnostic.message)", metadata: diagnostic.key.map { ["flag": "\($0)"] })
        notifyStatus()
    }
}
