import Logging
import Observation
import Synchronization

/// The app's feature flags: typed checks, values, overrides, snapshots and update streams over
/// a flag enum.
///
/// ```swift
/// let flags = FeatureFlagManager<AppFlag>(FlagSetup(buildConfiguration: .current))
///
/// if flags.isEnabled(.chatViewRedesign) { showNewChat() }
/// let pageSize = flags.value(AppConfig.pageSize)
/// flags.setOverride(.chatViewRedesign, to: true)
/// ```
///
/// A shared instance can be created before launch has decided the configuration; reads then
/// return code defaults (logging one warning per flag) until ``configure(_:)`` is called.
///
/// `isEnabled(_:)` is a lock-free read of an atomic word.
///
/// ## Observation
///
/// Every read is observed: ``isEnabled(_:)``, the subscript, ``value(_:)``, ``details(_:)``,
/// ``isOverridden(_:)`` and ``snapshot``, so a SwiftUI view (or `withObservationTracking`) that
/// read a flag redraws when values change: an override set or cleared, a user preference,
/// remote values applied, a (re)configuration. The granularity is the whole flag set: a change
/// to any flag notifies every observer, including those that read other flags. Outside
/// observation a tracked read costs one thread-local load more than an untracked one.
///
/// ``buildConfiguration`` and ``diagnostics`` are observed too, apart from the values: they
/// notify on a (re)configuration and on each new diagnostic, without telling flag readers.
public final class FeatureFlagManager<Key: FeatureFlagKey>: Sendable, Observable {
    /// The engine, for tools and the debug model.
    public let engine: FlagEngine
    @usableFromInline
    let caseIndex: FlagCaseIndex<Key>

    /// Creates the flags without configuring them: reads return code defaults, each logging a
    /// warning once, until ``configure(_:)``.
    ///
    /// Traps when the enum's declarations are inconsistent (a duplicate key, an unknown
    /// dependency, a cycle…), with a message that says how to fix them; `FlagRegistry(_:)`
    /// reports the same problems as a thrown error.
    public convenience init(logger: Logger = Logger(label: "feature-flags")) {
        self.init(logger: logger, setup: nil)
    }

    /// Creates configured flags.
    public convenience init(_ setup: FlagSetup) {
        self.init(logger: setup.logger, setup: setup)
    }

    /// Creates configured flags over a registry built beforehand, so that the registry is built
    /// once and shared, typically with a remote loader that validates payloads against it.
    ///
    /// ```swift
    /// let registry = try FlagRegistry(AppFlag.self)
    /// let loader = RemoteConfigurationLoader(configuration: configuration, registry: registry)
    /// let flags = FeatureFlagManager<AppFlag>(
    ///     FlagSetup(buildConfiguration: .current, remoteProvider: loader), registry: registry)
    /// ```
    ///
    /// Traps when `registry` is not `Key`'s (built by `FlagRegistry(Key.self)`: the enum's cases,
    /// then its typed values, in order), with a message saying so.
    public convenience init(_ setup: FlagSetup, registry: FlagRegistry) {
        precondition(
            registry.isRegistry(of: Key.self),
            "The registry given to FeatureFlagManager<\(Key.self)> is not the registry of \(Key.self); build it with FlagRegistry(\(Key.self).self).")
        self.init(logger: setup.logger, setup: setup, registry: registry)
    }

    private init(logger: Logger, setup: FlagSetup?, registry: FlagRegistry? = nil) {
        let registry = registry ?? Self.makeRegistry()
        self.engine = FlagEngine(registry: registry, logger: logger, resolvingDefaults: setup == nil)
        self.caseIndex = FlagCaseIndex()
        if let setup { engine.configure(setup) }
    }

    private static func makeRegistry() -> FlagRegistry {
        do {
            return try FlagRegistry(Key.self)
        } catch {
            preconditionFailure("Invalid feature flag declarations in \(Key.self): \(error)")
        }
    }

    /// Creates flags for a build configuration, with in-memory overrides and no remote values.
    public convenience init(buildConfiguration: BuildConfiguration) {
        self.init(FlagSetup(buildConfiguration: buildConfiguration))
    }

    /// Configures (or reconfigures) the flags; see ``FlagEngine/configure(_:)``.
    public func configure(_ setup: FlagSetup) {
        engine.configure(setup)
    }

    /// Whether ``configure(_:)`` has been called.
    public var isConfigured: Bool { engine.isConfigured }

    /// The configuration the flags run as, or `nil` before they are configured.
    public var buildConfiguration: BuildConfiguration? { engine.buildConfiguration }

    /// Problems noticed so far: unreadable stores, pruned keys, ignored remote values, invalid
    /// launch arguments, remote failures (see ``FlagEngine/diagnostics``).
    public var diagnostics: [FlagDiagnostic] { engine.diagnostics }

    // MARK: - Reading

    /// Whether a flag is on. A lock-free, allocation-free, observed read.
    @inlinable
    public func isEnabled(_ flag: Key) -> Bool {
        engine.track()
        return engine.readWord(at: caseIndex.index(of: flag)) != 0
    }

    /// Whether a flag is on: `flags[.chatViewRedesign]`.
    @inlinable
    public subscript(flag: Key) -> Bool { isEnabled(flag) }

    /// Whether a user-togglable flag is on when its user preference is combined by `mode`
    /// instead of its declared checking mode.
    public func isEnabled(_ flag: Key, checking mode: CheckingMode) -> Bool {
        let index = caseIndex.index(of: flag)
        engine.noteReadIfUnconfigured(index)
        return engine.currentTable().boolValue(at: index, checking: mode)
    }

    /// A typed value. Integers, doubles and Booleans are lock-free reads; `Codable` values are
    /// decoded once per change. A value not in this registry returns its declared default.
    @inlinable
    public func value<Value>(_ flag: TypedFlag<Value>) -> Value {
        engine.track()
        guard let index = engine.registry.index(of: flag) else { return flag.defaultValue }
        switch Value.flagValueType {
        case .boolean:
            return Value(flagValue: .bool(engine.readWord(at: index) != 0)) ?? flag.defaultValue
        case .integer:
            return Value(flagValue: .int(Int(truncatingIfNeeded: Int64(bitPattern: engine.readWord(at: index)))))
                ?? flag.defaultValue
        case .double:
            return Value(flagValue: .double(Double(bitPattern: engine.readWord(at: index)))) ?? flag.defaultValue
        case .string, .object:
            engine.noteRead(index)
            return storedValue(flag, at: index)
        }
    }

    @usableFromInline
    func storedValue<Value>(_ flag: TypedFlag<Value>, at index: Int) -> Value {
        engine.withCurrentTable { FlagSnapshot<Key>.value(flag, at: index, in: $0) }
    }

    /// The explanation of a flag's value: winning layer, reason and what every layer said.
    public func details(_ flag: Key) -> FlagEvaluationDetails {
        engine.currentTable().details(at: caseIndex.index(of: flag))
    }

    /// The explanation of a typed value.
    public func details<Value>(_ flag: TypedFlag<Value>) -> FlagEvaluationDetails {
        engine.details(forKey: flag.key)
    }

    /// Every value at one instant, for consistent reads across a transition, an animation or a
    /// server request. Observed: SwiftUI views reading it redraw when values change.
    ///
    /// Inlined and specialized for `Key`: taking a snapshot is one call into the engine (an
    /// Observation access and one atomic add that both reads the current table and takes a
    /// reference to it, paid in advance when the table was published); letting it go is one
    /// release.
    @inlinable
    public var snapshot: FlagSnapshot<Key> {
        let (table, unconfiguredEngine) = engine.snapshotParts()
        return FlagSnapshot(table: table, caseIndex: caseIndex, unconfiguredEngine: unconfiguredEngine)
    }

    /// Values resolved with `remote` in place of the current remote layer, without changing
    /// the flags: per-request values on a server, where a targeting provider evaluates the
    /// remote layer for each user.
    ///
    /// ```swift
    /// let snapshot = flags.snapshot(applying: targeting.values(for: context))
    /// ```
    ///
    /// Values of unknown flags or of the wrong type are ignored.
    public func snapshot(applying remote: RemoteFlagValues) -> FlagSnapshot<Key> {
        FlagSnapshot(table: engine.table(applying: remote), caseIndex: caseIndex, engine: engine)
    }

    // MARK: - Events

    /// Records an event (OpenFeature's `track`): a conversion, a purchase, a screen reached,
    /// with an optional number and attributes, attributed to the unit of the remote values in
    /// effect and to the variants that unit was exposed to. Does nothing unless the setup has a
    /// ``FlagSetup/eventRecorder``; attributes its configuration does not allow are left out.
    ///
    /// ```swift
    /// flags.track("checkout", value: 42.5, attributes: ["plan": "pro"])
    /// ```
    public func track(_ name: String, value: Double? = nil, attributes: [String: FlagValue] = [:]) {
        engine.recordTracked(name, value: value, attributes: attributes)
    }

    // MARK: - Overrides

    /// Sets a local developer override, or clears it with `nil`. Ignored, with a warning, in
    /// configurations that do not permit overrides.
    public func setOverride(_ flag: Key, to value: Bool?) {
        setOverride(key: flag.rawValue, value.map(FlagValue.bool))
    }

    /// Sets a local override of a typed value, or clears it with `nil`.
    public func setOverride<Value>(_ flag: TypedFlag<Value>, to value: Value?) {
        setOverride(key: flag.key, value?.flagValue)
    }

    /// Clears every local override.
    public func removeAllOverrides() {
        engine.removeAllOverrides()
    }

    /// Whether a flag has a local override in effect: never in a configuration that does not
    /// permit overrides (release, by default), where stored overrides are kept but ignored.
    public func isOverridden(_ flag: Key) -> Bool {
        engine.isOverridden(flag.rawValue)
    }

    /// Sets the user's preference for a user-togglable flag, or clears it with `nil`. Ignored,
    /// with a warning, for flags that are not user-togglable.
    public func setUserPreference(_ flag: Key, to value: Bool?) {
        do {
            try engine.setUserPreference(value.map(FlagValue.bool), forKey: flag.rawValue)
        } catch {
            engine.warn("\(error)", key: flag.rawValue)
        }
    }

    private func setOverride(key: String, _ value: FlagValue?) {
        do {
            try engine.setOverride(value, forKey: key)
        } catch {
            engine.warn("\(error)", key: key)
        }
    }

    // MARK: - Remote values

    /// Applies remote values waiting under ``RemoteApplyPolicy/atSafePoint``.
    public func applyPendingRemoteValues() {
        engine.applyPendingRemoteValues()
    }

    /// Asks the remote provider for fresh values (for example when the app comes to the
    /// foreground).
    public func refreshRemoteValues() async {
        await engine.refreshRemoteValues()
    }

    // MARK: - Updates

    /// Snapshots: the current one first, then one per change. Slow consumers see the newest.
    public func updates() -> AsyncStream<FlagSnapshot<Key>> {
        let caseIndex = self.caseIndex
        return engine.subscribe(index: nil) { FlagSnapshot(table: $0, caseIndex: caseIndex) }
    }

    /// A flag's value: the current one first, then one per change of that flag.
    public func updates(of flag: Key) -> AsyncStream<Bool> {
        let index = caseIndex.index(of: flag)
        return engine.subscribe(index: index) { table in table.values[index].boolValue ?? false }
    }

    /// The flags away from their code default, ready for a crash reporter's custom keys:
    /// variant names, values as short JSON, sensitive values redacted (see
    /// ``FlagCrashReportSnapshot``). Worked out when values are published; reading it is a copy.
    public var crashReportSnapshot: FlagCrashReportSnapshot { engine.crashReportSnapshot }

    /// The crash report's flags: the current ones first, then one per change of what they show.
    public func crashReportUpdates() -> AsyncStream<FlagCrashReportSnapshot> {
        engine.crashReportUpdates()
    }

    /// A typed value: the current one first, then one per change of that value.
    public func updates<Value>(of flag: TypedFlag<Value>) -> AsyncStream<Value> {
        guard let index = engine.registry.index(of: flag) else {
            return AsyncStream { continuation in
                continuation.yield(flag.defaultValue)
                continuation.finish()
            }
        }
        return engine.subscribe(index: index) { table in FlagSnapshot<Key>.value(flag, at: index, in: table) }
    }
}
