import Logging
import Observation
import Synchronization

/// Local overrides and user preferences: set, checked against the registry, persisted, and
/// applied by republishing.
extension FlagEngine {
    /// Whether local overrides apply in the current configuration.
    public var overridesPermitted: Bool {
        trackStatus()
        return state.withLock { state in
            guard let setup = state.setup else { return false }
            return setup.overridableConfigurations.contains(setup.buildConfiguration)
        }
    }

    /// The local overrides in effect (stored and from launch arguments), by key; empty in a
    /// configuration that does not permit overrides (release, by default), where stored
    /// overrides are kept but ignored (see ``storedOverrides``).
    public var overrides: [String: FlagValue] {
        track()
        return state.withLock { state in
            guard let setup = state.setup, setup.overridableConfigurations.contains(setup.buildConfiguration) else {
                return [:]
            }
            return state.storedOverrides.merging(state.launchOverrides) { _, launch in launch }
        }
    }

    /// Every local override kept (stored and from launch arguments), by key, whether or not
    /// the configuration applies them.
    public var storedOverrides: [String: FlagValue] {
        track()
        return state.withLock { $0.storedOverrides.merging($0.launchOverrides) { _, launch in launch } }
    }

    /// Whether `key` has a local override in effect: never in a configuration that does not
    /// permit overrides.
    public func isOverridden(_ key: String) -> Bool {
        track()
        return state.withLock { state in
            guard let setup = state.setup, setup.overridableConfigurations.contains(setup.buildConfiguration) else {
                return false
            }
            return state.storedOverrides[key] != nil || state.launchOverrides[key] != nil
        }
    }

    /// Sets (or, with `nil`, clears) the local override of `key` and stores it.
    ///
    /// - Throws: ``FlagOverrideError`` when there is no such flag, the value has the wrong type,
    ///   or overrides are not permitted in this configuration.
    public func setOverride(_ value: FlagValue?, forKey key: String) throws(FlagOverrideError) {
        let (_, normalized) = try check(value, forKey: key)
        let permitted = state.withLock { state -> Bool in
            guard let setup = state.setup else { return false }
            return setup.overridableConfigurations.contains(setup.buildConfiguration)
        }
        guard permitted else {
            throw FlagOverrideError(kind: .notPermitted(key: key, configuration: buildConfiguration))
        }
        let (snapshot, version, store) = state.withLock { state in
            state.storedOverrides[key] = normalized
            if normalized == nil { state.launchOverrides[key] = nil }
            state.overridesVersion += 1
            return (state.storedOverrides, state.overridesVersion, state.setup?.overrideStore)
        }
        republish()
        if let store { persist(snapshot, version: version, to: store, saved: savedOverrides, name: "override") }
    }

    /// Replaces every local override (stored and from launch arguments) with `values`, in one
    /// change: observers and streams hear of it once, the store is written once.
    ///
    /// - Throws: ``FlagOverrideError`` for the first key (in key order) that is unknown or has a
    ///   value the flag refuses, or when overrides are not permitted in this configuration; the
    ///   overrides are then left as they were.
    public func replaceOverrides(with values: [String: FlagValue]) throws(FlagOverrideError) {
        var normalized: [String: FlagValue] = [:]
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            let (_, accepted) = try check(value, forKey: key)
            normalized[key] = accepted
        }
        guard overridesPermitted else {
            throw FlagOverrideError(
                kind: .notPermitted(key: values.keys.sorted().first ?? "*", configuration: buildConfiguration))
        }
        let (version, store) = state.withLock { state in
            state.storedOverrides = normalized
            state.launchOverrides = [:]
            state.overridesVersion += 1
            return (state.overridesVersion, state.setup?.overrideStore)
        }
        republish()
        if let store { persist(normalized, version: version, to: store, saved: savedOverrides, name: "override") }
    }

    /// Clears every local override, stored and from launch arguments.
    public func removeAllOverrides() {
        let (version, store) = state.withLock { state in
            state.storedOverrides = [:]
            state.launchOverrides = [:]
            state.overridesVersion += 1
            return (state.overridesVersion, state.setup?.overrideStore)
        }
        republish()
        if let store { persist([:], version: version, to: store, saved: savedOverrides, name: "override") }
    }

    /// Sets (or, with `nil`, clears) the user's preference for a user-togglable flag.
    ///
    /// - Throws: ``FlagOverrideError`` when there is no such flag, it is not user-togglable, or
    ///   the value has the wrong type.
    public func setUserPreference(_ value: FlagValue?, forKey key: String) throws(FlagOverrideError) {
        let (index, normalized) = try check(value, forKey: key)
        guard registry.definitions[index].isUserTogglable else {
            throw FlagOverrideError(kind: .notUserTogglable(key))
        }
        let (snapshot, version, store) = state.withLock { state in
            state.userPreferences[key] = normalized
            state.preferencesVersion += 1
            return (state.userPreferences, state.preferencesVersion, state.setup?.userPreferenceStore)
        }
        republish()
        if let store {
            persist(snapshot, version: version, to: store, saved: savedPreferences, name: "user preference")
        }
    }

    private func check(_ value: FlagValue?, forKey key: String) throws(FlagOverrideError) -> (Int, FlagValue?) {
        guard let index = registry.index(ofKey: key) else { throw FlagOverrideError(kind: .unknownFlag(key)) }
        guard let value else { return (index, nil) }
        let definition = registry.definitions[index]
        switch definition.accepting(value) {
        case .success(let normalized):
            return (index, normalized)
        case .failure(let rejection) where rejection.isTypeMismatch:
            throw FlagOverrideError(
                kind: .typeMismatch(key: key, expected: definition.type, value: definition.shown(value)))
        case .failure(let rejection):
            throw FlagOverrideError(kind: .rejected(key: key, reason: rejection.description))
        }
    }

    private func persist(
        _ values: [String: FlagValue], version: UInt64, to store: any FlagValueStore, saved: Locked<UInt64>,
        name: String
    ) {
        let failure = saved.withLock { savedVersion -> FlagStoreError? in
            guard version > savedVersion else { return nil }
            do throws(FlagStoreError) {
                try store.save(values)
                savedVersion = version
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            report(FlagDiagnostic(kind: .unwritableStore, message: "The \(name) store failed: \(failure)"))
        }
    }

    func loadStore(
        _ store: any FlagValueStore, name: String, setup: FlagSetup, diagnostics: inout [FlagDiagnostic],
        onlyUserTogglable: Bool = false
    ) -> [String: FlagValue] {
        let stored: [String: FlagValue]
        do {
            stored = try store.load()
        } catch {
            diagnostics.append(FlagDiagnostic(kind: .unreadableStore, message: "The \(name) store: \(error)"))
            return [:]
        }
        var kept: [String: FlagValue] = [:]
        var pruned = false
        for (key, value) in stored.sorted(by: { $0.key < $1.key }) {
            let definition = registry.definition(forKey: key)
            let accepted = definition.map { $0.accepting(value) }
            let normalized = try? accepted?.get()
            let problem: String? =
                if let definition {
                    if case .failure(let rejection)? = accepted {
                        rejection.isTypeMismatch ? "it is not \(definition.type.nameWithArticle)" : "\(rejection)"
                    } else if onlyUserTogglable, !definition.isUserTogglable {
                        "the flag is not user-togglable"
                    } else {
                        nil
                    }
                } else {
                    "there is no such flag any more"
                }
            if let problem {
                pruned = true
                diagnostics.append(
                    FlagDiagnostic(
                        kind: .prunedStoredValue, key: key, message: "Removed the stored \(name) for '\(key)': \(problem)."))
            } else {
                kept[key] = normalized
            }
        }
        if pruned {
            do {
                try store.save(kept)
            } catch {
                diagnostics.append(
                    FlagDiagnostic(kind: .unwritableStore, message: "The \(name) store could not be pruned: \(error)"))
            }
        }
        return kept
    }
}
