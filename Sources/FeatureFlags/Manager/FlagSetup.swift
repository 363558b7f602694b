import Logging

/// Everything a manager needs to start resolving: the build configuration the app is running
/// as, where overrides and user preferences are kept, the remote provider and its apply
/// policy.
///
/// ```swift
/// let flags = FeatureFlagManager<AppFlag>(FlagSetup(
///     buildConfiguration: .current,
///     overrideStore: JSONFileFlagStore(directory: supportDirectory),
///     launchArguments: CommandLine.arguments))
/// ```
public struct FlagSetup: Sendable {
    /// The configuration the app is running as.
    public var buildConfiguration: BuildConfiguration
    /// Where local developer overrides are kept.
    public var overrideStore: any FlagValueStore
    /// Where user preferences are kept.
    public var userPreferenceStore: any FlagValueStore
    /// The source of remote values, if any.
    public var remoteProvider: (any RemoteFlagProvider)?
    /// When new remote values take effect.
    public var remoteApplyPolicy: RemoteApplyPolicy
    /// Which phases are on by default in which configuration.
    public var phasePolicy: PhasePolicy
    /// The configurations in which local overrides apply; all but release by default.
    public var overridableConfigurations: Set<BuildConfiguration>
    /// Command-line or UI-test arguments; `-ff.<key> <value>` pairs become overrides for this
    /// launch (see ``LaunchArgumentOverrides``).
    public var launchArguments: [String]
    /// Where problems and warnings are logged.
    public var logger: Logger
    /// Records exposures, read counts and tracked events, when set (see ``FlagEventRecorder``).
    public var eventRecorder: FlagEventRecorder?

    /// A setup for `buildConfiguration`; every other part has the default documented on its member.
    public init(
        buildConfiguration: BuildConfiguration,
        overrideStore: any FlagValueStore = InMemoryFlagStore(),
        userPreferenceStore: any FlagValueStore = InMemoryFlagStore(),
        remoteProvider: (any RemoteFlagProvider)? = nil,
        remoteApplyPolicy: RemoteApplyPolicy = .immediately,
        phasePolicy: PhasePolicy = .standard,
        overridableConfigurations: Set<BuildConfiguration> = BuildConfiguration.overridableByDefault,
        launchArguments: [String] = [],
        logger: Logger = Logger(label: "feature-flags"),
        eventRecorder: FlagEventRecorder? = nil
    ) {
        self.buildConfiguration = buildConfiguration
        self.overrideStore = overrideStore
        self.userPreferenceStore = userPreferenceStore
        self.remoteProvider = remoteProvider
        self.remoteApplyPolicy = remoteApplyPolicy
        self.phasePolicy = phasePolicy
        self.overridableConfigurations = overridableConfigurations
        self.launchArguments = launchArguments
        self.logger = logger
        self.eventRecorder = eventRecorder
    }
}
