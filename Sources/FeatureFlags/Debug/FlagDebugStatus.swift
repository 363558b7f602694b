import Foundation
import Observation

/// What the debug menu shows about the flags as a whole: the build configuration, whether
/// overrides apply, the remote values in effect and the problems noticed so far.
public struct FlagDebugStatus: Sendable, Hashable {
    /// The configuration the flags run as (`nil` before they are configured).
    public var buildConfiguration: BuildConfiguration?
    /// Whether local overrides apply.
    public var overridesPermitted: Bool
    /// The source of the remote values in effect (`"cache"`, `"app_config"`…), if any.
    public var remoteSource: String?
    /// Whether remote values wait for a safe point to apply.
    public var hasPendingRemoteValues: Bool
    /// The remote loader's own report, when the app gave the menu one.
    public var remote: FlagDebugRemoteStatus?
    /// Problems the flags noticed and worked around, oldest first.
    public var diagnostics: [FlagDiagnostic]

    /// A status as the model builds it.
    public init(
        buildConfiguration: BuildConfiguration?, overridesPermitted: Bool, remoteSource: String?,
        hasPendingRemoteValues: Bool, remote: FlagDebugRemoteStatus?, diagnostics: [FlagDiagnostic]
    ) {
        self.buildConfiguration = buildConfiguration
        self.overridesPermitted = overridesPermitted
        self.remoteSource = remoteSource
        self.hasPendingRemoteValues = hasPendingRemoteValues
        self.remote = remote
        self.diagnostics = diagnostics
    }
}

/// A remote loader's state as the debug menu shows it: coarse state, source, last fetch and
/// error. Carries no values and no credentials.
public struct FlagDebugRemoteStatus: Sendable, Hashable {
    /// A coarse state name, such as `ready`, `stale` or `error`.
    public var state: String
    /// Where the values in effect came from, such as `app_config` or `cache`.
    public var source: String?
    /// When the values in effect were fetched or last confirmed.
    public var lastFetch: Date?
    /// The last failure, until a refresh succeeds.
    public var error: String?
    /// A notice the app may show its users.
    public var notice: String?
    /// The server's change stream, such as `connected` or `connecting`; `nil` when none is
    /// followed.
    public var eventStream: String?

    /// A remote status as a loader reports it.
    public init(
        state: String, source: String? = nil, lastFetch: Date? = nil, error: String? = nil, notice: String? = nil,
        eventStream: String? = nil
    ) {
        self.state = state
        self.source = source
        self.lastFetch = lastFetch
        self.error = error
        self.notice = notice
        self.eventStream = eventStream
    }
}

/// Something that reports a remote loader's state to the debug menu (`RemoteConfigurationLoader`
/// in FeatureFlagsRemote does).
///
/// The menu redraws from Observation, so reading ``debugRemoteStatus`` must register an access
/// (`ObservationRegistrar.access`) and every change of what it returns must be announced
/// (`withMutation`), as an `@Observable` class does.
public protocol FlagDebugRemoteStatusReporting: Sendable, Observable {
    /// The state now; an observed read.
    var debugRemoteStatus: FlagDebugRemoteStatus { get }
}
