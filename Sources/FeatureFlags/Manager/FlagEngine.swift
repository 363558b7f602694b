import Logging
import Observation
import Synchronization

/// The engine behind ``FeatureFlagManager``: resolves a ``FlagRegistry`` through its layers, keeps
/// overrides and preferences, applies remote values and publishes the results.
///
/// Apps use the typed ``FeatureFlagManager`` over their flag enum. `FlagEngine` works by key and
/// suits tools that load their registry at run time, such as the `flags` command.
///
/// Checks are reads: resolution runs when an input changes, and its results are published to
/// atomic slots (Booleans and numbers) and an immutable table (everything else).
///
/// Observation: every read but ``untracked`` ones (``value(forKey:)``, ``details(forKey:)``, ``allDetails()``,
/// ``overrides``, ``revision``, and every read of a ``FeatureFlagManager`` or ``FlagDebugModel``
/// over it) registers with Observation, and every published change notifies it: a value or
/// winning layer changed by an override, a user preference, remote values applied, or
/// configuration. The granularity is the whole flag set, not one flag: a view that read one flag
/// is told of a change to any flag (changes are rare; checks are many).
///
/// The engine's status (``buildConfiguration``, ``overridesPermitted``, ``hasPendingRemoteValues``,
/// ``remoteSource``, ``diagnostics``, ``statusRevision``) is observed apart from the values: it
/// notifies when remote values start or stop waiting for a safe point, a diagnostic is recorded,
/// or the configuration changes, without telling every view that read a flag.
public final class FlagEngine: Sendable, Observable {
    /// The flags this manager resolves.
    public let registry: FlagRegistry

    /// Each flag's value word and read mark (see ``FlagReadMarks``), and the read counters.
    @usableFromInline
    let slots: AtomicFlagSlots
    @usableFromInline
    let configured = Atomic<Bool>(false)
    /// ``revision``'s key path, built once: building a key path on every read would cost more
    /// than the read itself.
    @usableFromInline
    let revisionKeyPath: any KeyPath<FlagEngine, UInt64> & Sendable
    /// After the fields a check reads: the registrar's size is known only at run time (its
    /// module is built for library evolution), and so are the offsets of the fields after it.
    @usableFromInline
    let registrar = ObservationRegistrar()
    private let publishedRevision = Atomic<UInt64>(0)
    /// ``statusRevision``'s key path, built once.
    let statusKeyPath: any KeyPath<FlagEngine, UInt64> & Sendable
    private let publishedStatusRevision = Atomic<UInt64>(0)
    /// The current table, for lock-free reads; replaced under the state lock.
    private let published: PublishedReference<ResolvedFlagTable>

    let state: Locked<State>
    /// The version of the override values last written to the store, so that concurrent saves
    /// never replace newer values with older ones.
    let savedOverrides = Locked<UInt64>(0)
    let savedPreferences = Locked<UInt64>(0)
    let fallbackLogger: Logger

    struct State {
        var setup: FlagSetup?
        var table: ResolvedFlagTable
        var storedOverrides: [String: FlagValue] = [:]
        var launchOverrides: [String: FlagValue] = [:]
        var userPreferences: [String: FlagValue] = [:]
        var remote: CheckedRemote
        var pendingRemote: CheckedRemote?
        var overridesVersion: UInt64 = 0
        var preferencesVersion: UInt64 = 0
        var diagnostics: [FlagDiagnostic] = []
        var warnedBeforeConfiguration: Set<Int> = []
        var subscribers: [UInt64: Subscriber] = [:]
        var nextSubscriberID: UInt64 = 0
        var remoteTask: Task<Void, Never>?
        /// The highest each row of read counters stood at a harvest.
        var readBaselines: [UInt64] = []
        /// Whether any read mark may be non-zero: a recorder is configured, or (from creation to
        /// the first publication after configuration) every mark sends reads out of line to warn
        /// of reads before configuration.
        var marksOn = true
        /// The non-default flags of `table`, for crash reporters: recomputed when a table is
        /// published, never when it is read.
        var crashReport = FlagCrashReportSnapshot.empty
        var crashReportSubscribers: [UInt64: AsyncStream<FlagCrashReportSnapshot>.Continuation] = [:]
    }

    /// Remote values that passed validation, by registry position.
    struct CheckedRemote: Sendable, Equatable {
        var source: String
        var byIndex: [RemoteFlagValue?]
        var count: Int
        var unit: String? = nil
        var revision: String? = nil

        static func empty(count: Int) -> CheckedRemote {
            CheckedRemote(source: RemoteFlagValues.empty.source, byIndex: Array(repeating: nil, count: count), count: 0)
        }
    }

    struct Subscriber {
        /// The flag the subscriber follows, or `nil` for every change.
        let index: Int?
        let send: @Sendable (ResolvedFlagTable) -> Void
        let finish: @Sendable () -> Void
    }

    /// Creates a manager that is not configured yet: reads return code defaults and log a
    /// warning once per flag until ``configure(_:)`` is called.
    public convenience init(registry: FlagRegistry, logger: Logger = Logger(label: "feature-flags")) {
        self.init(registry: registry, logger: logger, resolvingDefaults: true)
    }

    /// Creates a configured manager.
    public convenience init(registry: FlagRegistry, setup: FlagSetup) {
        self.init(registry: registry, logger: setup.logger, resolvingDefaults: false)
        configure(setup)
    }

    /// - Parameter resolvingDefaults: whether to resolve the unconfigured values now; `false`
    ///   only when ``configure(_:)`` follows before anyone else can read, so the placeholder
    ///   table of code defaults is never seen.
    init(registry: FlagRegistry, logger: Logger, resolvingDefaults: Bool) {
        self.registry = registry
        self.fallbackLogger = logger
        self.slots = AtomicFlagSlots(count: registry.count)
        let inputs = ResolutionInputs(count: registry.count)
        let table =
            resolvingDefaults
            ? FlagResolver.resolve(registry: registry, inputs: inputs)
            : ResolvedFlagTable(
                registry: registry, inputs: inputs, values: registry.definitions.map(\.defaultValue),
                layers: Array(repeating: .default, count: registry.count),
                adjustments: Array(repeating: nil, count: registry.count),
                decoded: Array(repeating: nil, count: registry.count))
        for index in 0..<registry.count {
            slots.store(AtomicFlagSlots.word(for: table.values[index]), at: index)
            // Until configured, reads go out of line to warn (the first publication after
            // configuration rewrites every mark).
            slots.setMark(FlagReadMarks.slow, at: index)
        }
        self.state = Locked(State(table: table, remote: .empty(count: registry.count)))
        self.published = PublishedReference(table)
        self.revisionKeyPath = \FlagEngine.revision
        self.statusKeyPath = \FlagEngine.statusRevision
    }

    deinit {
        let (task, subscribers, crashReportSubscribers) = state.withLock { state in
            (state.remoteTask, Array(state.subscribers.values), Array(state.crashReportSubscribers.values))
        }
        task?.cancel()
        for subscriber in subscribers { subscriber.finish() }
        for subscriber in crashReportSubscribers { subscriber.finish() }
    }

    // MARK: - Configuration

    /// Whether ``configure(_:)`` has been called.
    public var isConfigured: Bool { configured.load(ordering: .acquiring) }

    /// The configuration the manager runs as, or `nil` before it is configured.
    public var buildConfiguration: BuildConfiguration? {
        trackStatus()
        return state.withLock { $0.setup?.buildConfiguration }
    }

    /// The most diagnostics ``diagnostics`` keeps (1,000); older ones are dropped first.
    public static let diagnosticsLimit = 1_000

    /// Problems noticed so far, the newest ``diagnosticsLimit`` of them: unreadable stores,
    /// pruned keys, ignored remote values, failed refreshes.
    public var diagnostics: [FlagDiagnostic] {
        trackStatus()
        return state.withLock { $0.diagnostics }
    }

    /// Sets the manager up: loads overrides and preferences (pruning unknown keys), parses
    /// launch arguments, applies the provider's cached values, resolves, and starts loading
    /// remote values in the background. Calling it again replaces the previous setup.
    public func configure(_ setup: FlagSetup) {
        var diagnostics: [FlagDiagnostic] = []
        let overrides = loadStore(setup.overrideStore, name: "override", setup: setup, diagnostics: &diagnostics)
        let preferences = loadStore(
            setup.userPreferenceStore, name: "user preference", setup: setup, diagnostics: &diagnostics,
            onlyUserTogglable: true)
        let (launchOverrides, problems) = LaunchArgumentOverrides.parse(setup.launchArguments, registry: registry)
        for problem in problems {
            diagnostics.append(FlagDiagnostic(kind: .invalidLaunchArgument, message: problem))
        }
        var remote = CheckedRemote.empty(count: registry.count)
        if let cached = setup.remoteProvider?.cachedFlags() {
            remote = validated(cached, diagnostics: &diagnostics)
        }
        for diagnostic in diagnostics {
            setup.logger.warning("\(diagnostic.message)", metadata: diagnostic.key.map { ["flag": "\($0)"] })
        }

        let (previousTask, previousRecorder) = state.withLock { state in
            let previousRecorder = state.setup?.eventRecorder
            state.setup = setup
            state.storedOverrides = overrides
            state.launchOverrides = launchOverrides
            state.userPreferences = preferences
            state.remote = remote
            state.pendingRemote = nil
            state.diagnostics += diagnostics
            state.dropOldDiagnostics()
            let task = state.remoteTask
            state.remoteTask = nil
            return (task, previousRecorder)
        }
        previousTask?.cancel()
        if let previousRecorder, previousRecorder !== setup.eventRecorder {
            // The old recorder keeps the reads counted while it was configured.
            harvestReadCounts(into: previousRecorder)
            previousRecorder.detach(self)
        }
        if let recorder = setup.eventRecorder {
            recorder.attach(self) { [weak self, weak recorder] in
                guard let self, let recorder else { return }
                self.harvestReadCounts(into: recorder)
            }
        }
        republish()
        configured.store(true, ordering: .releasing)
        Self.noteConfigured(setup.buildConfiguration)
        notifyStatus()

        if let provider = setup.remoteProvider {
            let policy = setup.remoteApplyPolicy
            let task = Task { [weak self] in
                do {
                    let values = try await provider.loadFlags()
                    guard !Task.isCancelled else { return }
                    self?.receive(values, policy: policy, initial: true)
                } catch {
                    guard !Task.isCancelled else { return }
                    self?.report(
                        FlagDiagnostic(
                            kind: .remoteProviderFailed,
                            message:
                                "Loading remote flag values failed: \(Self.clause(error)). The cached or build defaults stay in effect."
                        ))
                }
                for await values in provider.updates() {
                    guard !Task.isCancelled, let self else { return }
                    self.receive(values, policy: policy, initial: false)
                }
            }
            state.withLock { $0.remoteTask = task }
        }
    }

    // MARK: - Reading

    /// The current resolved values; a tracked, lock-free read (see ``track()``).
    func currentTable() -> ResolvedFlagTable {
        track()
        return published.load()
    }

    /// The current resolved values and, when they are the values from before configuration, the
    /// engine to report reads of them to: what a ``FlagSnapshot`` holds. A tracked, lock-free
    /// read; not generic, so a snapshot inlined into the app's code calls it directly.
    @usableFromInline
    func snapshotParts() -> (table: ResolvedFlagTable, unconfiguredEngine: FlagEngine?) {
        let table = currentTable()
        return (table, table.inputs.configuration == nil ? self : nil)
    }

    /// Runs `body` with the current resolved values, borrowed: a tracked, lock-free read without
    /// reference counting of the table. `body` must be short and must not change the engine.
    func withCurrentTable<Result>(_ body: (ResolvedFlagTable) -> Result) -> Result {
        track()
        return published.withCurrent(body)
    }

    /// The resolved value of `key`, or `nil` when the registry has no such flag. Lock-free:
    /// Booleans and numbers come from their atomic slots, other values from the published table.
    public func value(forKey key: String) -> FlagValue? {
        value(forKey: key, tracked: true)
    }

    /// Reads by key that Observation does not see: ``value(forKey:)`` without registering the
    /// access (a thread-local lookup, about 65 instructions), for servers and tools that read many
    /// keys and redraw nothing.
    ///
    /// ```swift
    /// let limit = engine.untracked.value(forKey: "api.rate_limit")
    /// ```
    public var untracked: UntrackedEngineReads { UntrackedEngineReads(engine: self) }

    func value(forKey key: String, tracked: Bool) -> FlagValue? {
        guard let index = registry.index(ofKey: key) else { return nil }
        if tracked { track() }
        switch registry.definitions[index].type {
        case .boolean:
            return .bool(readWord(at: index) != 0)
        case .integer:
            return .int(Int(truncatingIfNeeded: Int64(bitPattern: readWord(at: index))))
        case .double:
            return .double(Double(bitPattern: readWord(at: index)))
        case .string, .object:
            noteRead(index)
            return published.withCurrent { $0.values[index] }
        }
    }

    /// The explanation of `key`'s value; `FLAG_NOT_FOUND` when there is no such flag.
    public func details(forKey key: String) -> FlagEvaluationDetails {
        guard let index = registry.index(ofKey: key) else {
            return FlagEvaluationDetails(
                key: key, value: .null, layer: .default, reason: .error, errorCode: .flagNotFound,
                message: "There is no flag '\(key)' in the registry.")
        }
        return currentTable().details(at: index)
    }

    /// The flags whose value differs from their code default or came from the server, ready
    /// for a crash reporter: worked out when values are published, so reading it is a copy.
    ///
    /// ```swift
    /// for (key, text) in flags.engine.crashReportSnapshot.texts { crashReporter.setCustomValue(text, forKey: "flag." + key) }
    /// ```
    public var crashReportSnapshot: FlagCrashReportSnapshot {
        state.withLock { $0.crashReport }
    }

    /// The crash report's flags: the current ones first, then one element each time a flag's
    /// shown text changes (a value, or only its variant name). Keeps only the newest element
    /// when the consumer is slow; ends when the consumer stops.
    public func crashReportUpdates() -> AsyncStream<FlagCrashReportSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: FlagCrashReportSnapshot.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64 in
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.crashReportSubscribers[id] = continuation
            continuation.yield(state.crashReport)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.crashReportSubscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// The texts of ``crashReportSnapshot``.
    public func nonDefaultFlags() -> [String: String] {
        crashReportSnapshot.texts
    }

    /// Every flag's explanation, in registry order.
    public func allDetails() -> [FlagEvaluationDetails] {
        let table = currentTable()
        return (0..<table.count).map(table.details(at:))
    }

    // MARK: - Recording

    /// Records the exposure of the flag at `index` to the unit its remote value was served to:
    /// the first read since the value was published (the recorder drops repeats of a flag,
    /// variant and unit).
    func recordExposure(at index: Int) {
        guard slots.claimSlowMark(at: index), let recorder = state.withLock({ $0.setup?.eventRecorder }) else { return }
        let exposure = published.withCurrent { table -> (FlagValue, String?, FlagReason, String?, String?)? in
            guard table.layers[index] == .remote else { return nil }
            return (
                table.values[index], table.variant(at: index), table.reason(at: index), table.inputs.remoteRevision,
                table.inputs.remoteUnit
            )
        }
        guard let (value, variant, reason, revision, unit) = exposure else { return }
        let definition = registry.definitions[index]
        recorder.recordExposure(
            flag: definition.key, variant: variant, value: value, isSensitive: definition.isSensitive, reason: reason,
            revision: revision, unit: unit)
    }

    /// Records an event the app tracked, attributed to the unit of the remote values in effect.
    public func recordTracked(_ name: String, value: Double?, attributes: [String: FlagValue]) {
        guard let recorder = state.withLock({ $0.setup?.eventRecorder }) else { return }
        let unit = published.withCurrent { $0.inputs.remoteUnit }
        recorder.track(name, value: value, attributes: attributes, unit: unit)
    }

    // MARK: - Publishing

    /// Resolves from the current inputs and publishes the result to the slots, the table and
    /// every stream subscriber whose values changed; then tells observers, who also hear of
    /// changes that leave values alone (an override set to the current value changes the
    /// winning layer the debug menu shows).
    func republish() {
        let (changed, counts, recorder) = state.withLock {
            state -> (Bool, [(flag: String, variant: String?, reason: FlagReason, count: Int)], FlagEventRecorder?) in
            guard let inputs = Self.inputs(from: state, remote: state.remote, registry: registry) else {
                return (false, [], nil)
            }
            let previous = state.table
            let table = FlagResolver.resolve(registry: registry, inputs: inputs, previous: previous)
            // Reads so far counted for the values they read, before new values are published.
            let recorder = state.setup?.eventRecorder
            let counts = recorder == nil ? [] : harvestReadCounts(in: &state, table: previous)
            state.table = table
            published.replace(with: table)
            let crashReport = FlagCrashReportSnapshot(table: table)
            if crashReport != state.crashReport {
                state.crashReport = crashReport
                for subscriber in state.crashReportSubscribers.values { subscriber.yield(crashReport) }
            }
            if recorder != nil || state.marksOn {
                // Every read counts; the next read of each remote value records an exposure.
                for index in 0..<table.count {
                    let mark =
                        recorder == nil
                        ? 0
                        : UInt64(slots.counterOffset(of: index))
                            | (table.layers[index] == .remote ? FlagReadMarks.slow : 0)
                    slots.setMark(mark, at: index)
                }
                state.marksOn = recorder != nil
            }

            var changed = [Bool](repeating: false, count: table.count)
            var anyChanged = false
            for index in 0..<table.count where table.values[index] != previous.values[index] {
                changed[index] = true
                anyChanged = true
                slots.store(AtomicFlagSlots.word(for: table.values[index]), at: index)
            }
            if anyChanged {
                for subscriber in state.subscribers.values where subscriber.index.map({ changed[$0] }) ?? true {
                    subscriber.send(table)
                }
            }
            return (true, counts, recorder)
        }
        recorder?.addCounts(counts)
        guard changed else { return }
        registrar.withMutation(of: self, keyPath: revisionKeyPath) {
            _ = publishedRevision.add(1, ordering: .releasing)
        }
    }

    /// The inputs of a resolution: the state's overrides and preferences with `remote` as the
    /// remote layer; `nil` before configuration.
    private static func inputs(from state: State, remote: CheckedRemote, registry: FlagRegistry) -> ResolutionInputs? {
        guard let setup = state.setup else { return nil }
        var inputs = ResolutionInputs(
            count: registry.count, configuration: setup.buildConfiguration, phasePolicy: setup.phasePolicy)
        inputs.overridesPermitted = setup.overridableConfigurations.contains(setup.buildConfiguration)
        inputs.remoteSource = remote.source
        inputs.remoteUnit = remote.unit
        inputs.remoteRevision = remote.revision
        inputs.remote = remote.byIndex
        for (key, value) in state.userPreferences {
            if let index = registry.index(ofKey: key) { inputs.userPreferences[index] = value }
        }
        for (key, value) in state.storedOverrides.merging(state.launchOverrides, uniquingKeysWith: { $1 }) {
            if let index = registry.index(ofKey: key) { inputs.overrides[index] = value }
        }
        return inputs
    }

    /// Resolves once with `remote` in place of the current remote values, leaving the manager as
    /// it is: per-request values on a server (targeting for one user), or a preview.
    func table(applying remote: RemoteFlagValues) -> ResolvedFlagTable {
        var ignored: [FlagDiagnostic] = []
        let checked = validated(remote, diagnostics: &ignored)
        let (inputs, current) = state.withLock { state in
            (Self.inputs(from: state, remote: checked, registry: registry), state.table)
        }
        guard let inputs else { return current }
        return FlagResolver.resolve(registry: registry, inputs: inputs, previous: current)
    }

    // MARK: - Observation

    /// A stream of the resolved values: the current ones first, then one element per change.
    /// Keeps only the newest element when the consumer is slow; ends when the consumer stops.
    func subscribe<Element: Sendable>(
        index: Int?, transform: @escaping @Sendable (ResolvedFlagTable) -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> UInt64 in
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = Subscriber(
                index: index,
                send: { table in continuation.yield(transform(table)) },
                finish: { continuation.finish() })
            continuation.yield(transform(state.table))
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// A flag's value: the current one first, then one element each time it changes. Ends at
    /// once for a key the registry does not have.
    public func updates(forKey key: String) -> AsyncStream<FlagValue> {
        guard let index = registry.index(ofKey: key) else { return AsyncStream { $0.finish() } }
        return subscribe(index: index) { $0.values[index] }
    }

    /// The number of live update streams (for tests of stream clean-up).
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count + $0.crashReportSubscribers.count }
    }

    /// A number that grows by one with every published change (see ``FlagEngine``'s
    /// Observation notes); observed.
    public var revision: UInt64 {
        track()
        return publishedRevision.load(ordering: .acquiring)
    }

    /// Registers a read with Observation, so that `withObservationTracking` (and SwiftUI) hear
    /// of the next published change. Costs a thread-local read when nothing is tracking: no
    /// lock, no allocation, no key-path instantiation.
    @inlinable
    func track() {
        registrar.access(self, keyPath: revisionKeyPath)
    }

    /// A number that grows by one with every change of the engine's status: remote values
    /// starting or stopping to wait for a safe point, a new remote source, a diagnostic, a
    /// (re)configuration. Observed, apart from ``revision``, so that status views redraw
    /// without every flag reader redrawing with them.
    public var statusRevision: UInt64 {
        trackStatus()
        return publishedStatusRevision.load(ordering: .acquiring)
    }

    /// Registers a read of the status with Observation.
    func trackStatus() {
        registrar.access(self, keyPath: statusKeyPath)
    }

    /// Tells status observers of a change. Called after the state lock is released, as
    /// observers may read the engine.
    func notifyStatus() {
        registrar.withMutation(of: self, keyPath: statusKeyPath) {
            _ = publishedStatusRevision.add(1, ordering: .releasing)
        }
    }
}

extension FlagEngine.State {
    /// Keeps the newest ``FlagEngine/diagnosticsLimit`` diagnostics.
    mutating func dropOldDiagnostics() {
        let excess = diagnostics.count - FlagEngine.diagnosticsLimit
        if excess > 0 { diagnostics.removeFirst(excess) }
    }
}
