#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

extension View {
    /// Refreshes the flags when the app returns to the foreground and tells them when it goes
    /// to the background, from SwiftUI's scene phase: the `onChange(of: scenePhase)` every app
    /// used to write. The decisions are ``FlagScenePhaseTracker``'s (launch does nothing,
    /// Control Center and alerts do nothing).
    ///
    /// Pass the remote loader (FeatureFlagsRemote's `RemoteConfigurationLoader`), which refreshes
    /// only when its values are due and closes its change stream in the background; or the
    /// manager itself, which asks its provider for fresh values on every return.
    ///
    /// ```swift
    /// WindowGroup {
    ///     ContentView().refreshesFeatureFlags(loader)
    /// }
    /// ```
    ///
    /// Attach it once, to the root view of the app's main scene.
    public func refreshesFeatureFlags(_ responder: some FlagLifecycleResponder) -> some View {
        modifier(FlagLifecycleRefresh(responder: responder))
    }
}

private struct FlagLifecycleRefresh<Responder: FlagLifecycleResponder>: ViewModifier {
    let responder: Responder
    @Environment(\.scenePhase) private var scenePhase
    @State private var tracker = FlagScenePhaseTracker()

    func body(content: Content) -> some View {
        content.onChange(of: scenePhase, initial: true) { _, phase in
            guard let event = tracker.update(to: FlagScenePhase(phase)) else { return }
            let responder = self.responder
            Task { await responder.handle(event) }
        }
    }
}

extension FlagScenePhase {
    /// SwiftUI's phase; a phase added in a later SDK counts as inactive.
    init(_ phase: ScenePhase) {
        switch phase {
        case .active: self = .active
        case .background: self = .background
        case .inactive: self = .inactive
        @unknown default: self = .inactive
        }
    }
}
#endif
