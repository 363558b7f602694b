// Names from before the manager and the engine had names of their own, kept for one release.
//
// They sit behind the package trait `DeprecatedNames`, on by default so existing apps keep
// compiling. A type named `FeatureFlags` shadows the module of the same name, so an app with its
// own `BuildConfiguration` cannot write `FeatureFlags.BuildConfiguration` while the alias exists:
// such an app turns the trait off (`traits: []` on its `.package(...)` line), or writes the
// module selector `FeatureFlags::BuildConfiguration`.
#if DeprecatedNames

/// The app's feature flags; renamed ``FeatureFlagManager``.
@available(*, deprecated, renamed: "FeatureFlagManager")
public typealias FeatureFlags<Key: FeatureFlagKey> = FeatureFlagManager<Key>

/// The untyped engine; renamed ``FlagEngine``.
@available(*, deprecated, renamed: "FlagEngine")
public typealias FlagManager = FlagEngine

extension FeatureFlagManager {
    /// The engine; renamed ``engine``.
    @available(*, deprecated, renamed: "engine")
    public var manager: FlagEngine { engine }
}

extension FlagDebugModel {
    /// The engine; renamed ``engine``.
    @available(*, deprecated, renamed: "engine")
    public var manager: FlagEngine { engine }

    /// Creates the model over an engine.
    @available(*, deprecated, renamed: "init(engine:)")
    public init(manager: FlagEngine) { self.init(engine: manager) }
}

#endif
