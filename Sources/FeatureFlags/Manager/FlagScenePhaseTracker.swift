/// An app's scene phase as the flags see it: SwiftUI's `ScenePhase`, without SwiftUI.
public enum FlagScenePhase: String, Sendable, Hashable, CaseIterable {
    /// In the foreground and receiving events.
    case active
    /// In the foreground without events (an alert, the app switcher).
    case inactive
    /// Not visible.
    case background
}

/// What the flags do when the app changes phase.
public enum FlagLifecycleEvent: String, Sendable, Hashable {
    /// The app came back from the background: refresh remote values (when due) and reopen the
    /// server's change stream.
    case enterForeground
    /// The app went to the background: let the change stream close after its inactivity delay.
    case enterBackground
}

/// Decides, from the scene phases an app goes through, when its flags enter the foreground and
/// the background: what every app used to write by hand in `onChange(of: scenePhase)`.
/// FeatureFlagsUI's `.refreshesFeatureFlags(_:)` drives it from SwiftUI's scene phase.
///
/// - The first phase (launch) does nothing: configuring the flags already loads remote values.
/// - Coming back to `active` from `background` (through `inactive` or not) enters the foreground.
/// - Going to `background` enters the background.
/// - `active` ⇄ `inactive` alone (Control Center, a system alert, the app switcher opened and
///   closed) does nothing.
///
/// ```swift
/// var tracker = FlagScenePhaseTracker()
/// tracker.update(to: .active)       // nil: launch
/// tracker.update(to: .background)   // .enterBackground
/// tracker.update(to: .active)       // .enterForeground
/// ```
public struct FlagScenePhaseTracker: Sendable, Hashable {
    /// The last phase seen, or `nil` before the first.
    public private(set) var phase: FlagScenePhase?
    /// Whether the app went to the background since it was last in the foreground.
    public private(set) var isInBackground = false

    /// A tracker that has seen no phase yet.
    public init() {}

    /// Records a phase; returns what the flags should do, if anything.
    @discardableResult
    public mutating func update(to newPhase: FlagScenePhase) -> FlagLifecycleEvent? {
        defer { phase = newPhase }
        guard phase != nil else {
            isInBackground = newPhase == .background
            return nil
        }
        switch newPhase {
        case .background:
            guard !isInBackground else { return nil }
            isInBackground = true
            return .enterBackground
        case .active:
            guard isInBackground else { return nil }
            isInBackground = false
            return .enterForeground
        case .inactive:
            return nil
        }
    }
}

/// Something that acts on the app's lifecycle events: the feature flag manager (which refreshes
/// remote values in the foreground) or the remote loader in FeatureFlagsRemote (which also
/// refreshes only when its values are due, and closes and reopens the server's change stream).
public protocol FlagLifecycleResponder: Sendable {
    /// The app came back to the foreground.
    func appWillEnterForeground() async
    /// The app went to the background.
    func appDidEnterBackground()
}

extension FlagLifecycleResponder {
    /// Acts on `event`.
    public func handle(_ event: FlagLifecycleEvent) async {
        switch event {
        case .enterForeground: await appWillEnterForeground()
        case .enterBackground: appDidEnterBackground()
        }
    }
}

extension FeatureFlagManager: FlagLifecycleResponder {
    /// Asks the remote provider for fresh values (``refreshRemoteValues()``).
    public func appWillEnterForeground() async {
        await refreshRemoteValues()
    }

    /// Nothing: the manager has nothing to pause.
    public func appDidEnterBackground() {}
}
