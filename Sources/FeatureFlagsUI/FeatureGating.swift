#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

#if canImport(os)
import os
#endif

extension View {
    /// Makes `flags` available to ``featureGated(_:)`` and ``withFeature(_:content:)`` in this
    /// view and its descendants.
    ///
    /// The environment keeps one manager per flag type: an app whose modules each declare a
    /// flag enum gives each module's manager, at the root or nearer its views, and a nested
    /// call adds its manager without hiding the others (a manager of the same flag type
    /// replaces the outer one in the subtree).
    ///
    /// ```swift
    /// RootView()
    ///     .featureFlags(appFlags)
    ///     .featureFlags(checkoutFlags)
    /// ```
    public func featureFlags<Key: FeatureFlagKey>(_ flags: FeatureFlagManager<Key>) -> some View {
        transformEnvironment(\.featureFlagManagers) { managers in managers.insert(flags) }
    }

    /// Shows the view only while `flag` is on, reading the manager of its flag type set with
    /// ``featureFlags(_:)``.
    ///
    /// Without that manager the flag counts as off. Unless the app's flags run as `release`
    /// (decided at run time from their build configuration, not from how the package was
    /// compiled), the gate then shows a placeholder saying so and logs it, rather than hide the
    /// view silently.
    public func featureGated<Key: FeatureFlagKey>(_ flag: Key) -> some View {
        modifier(EnvironmentFeatureGate(flag: flag, replacement: Optional<EmptyView>.none))
    }

    /// Swaps in `content` while `flag` is on, reading the manager set with ``featureFlags(_:)``.
    /// Without it, the original view stays and, outside release builds, the misconfiguration
    /// is logged.
    public func withFeature<Key: FeatureFlagKey, Content: View>(
        _ flag: Key, @ViewBuilder content: () -> Content
    ) -> some View {
        modifier(EnvironmentFeatureGate(flag: flag, replacement: Optional.some(content())))
    }

    /// Shows the view only while `flag` is on.
    ///
    /// ```swift
    /// QuickSettingsButton().featureGated(.quickSettings, in: flags)
    /// ```
    public func featureGated<Key: FeatureFlagKey>(_ flag: Key, in flags: FeatureFlagManager<Key>) -> some View {
        modifier(FeatureGate(flags: flags, flag: flag))
    }

    /// Swaps in `content` while `flag` is on; shows the original view otherwise.
    ///
    /// ```swift
    /// LegacyChatView().withFeature(.chatViewRedesign, in: flags) { ChatView() }
    /// ```
    public func withFeature<Key: FeatureFlagKey, Content: View>(
        _ flag: Key, in flags: FeatureFlagManager<Key>, @ViewBuilder content: () -> Content
    ) -> some View {
        modifier(FeatureSwap(flags: flags, flag: flag, replacement: content()))
    }
}

extension EnvironmentValues {
    /// The managers set with `featureFlags(_:)`, one per flag type.
    var featureFlagManagers: FeatureFlagManagers {
        get { self[FeatureFlagManagersKey.self] }
        set { self[FeatureFlagManagersKey.self] = newValue }
    }
}

private struct FeatureFlagManagersKey: EnvironmentKey {
    static let defaultValue = FeatureFlagManagers()
}

/// Where gates report a misconfiguration.
enum FeatureGateDiagnostics {
    /// Logs a misconfigured gate (a fault in the unified log, without trapping).
    static func report(_ message: String) {
        #if canImport(os)
        os.Logger(subsystem: "FeatureFlagsUI", category: "featureGated").fault("\(message, privacy: .public)")
        #endif
    }
}

/// Gates on flags from the environment; the decision is ``FeatureGateDecision``'s.
private struct EnvironmentFeatureGate<Key: FeatureFlagKey, Replacement: View>: ViewModifier {
    @Environment(\.featureFlagManagers) private var managers
    let flag: Key
    let replacement: Replacement?

    func body(content: Content) -> some View {
        switch FeatureGateDecision.decide(flag, in: managers) {
        case .on:
            if let replacement { replacement } else { content }
        case .off:
            if replacement != nil { content }
        case .misconfigured(let message):
            if replacement != nil {
                content.onAppear { FeatureGateDiagnostics.report(message) }
            } else {
                MisconfiguredGatePlaceholder(message: message)
            }
        }
    }
}

/// What a misconfigured `featureGated(_:)` shows outside release builds instead of nothing.
private struct MisconfiguredGatePlaceholder: View {
    let message: String

    var body: some View {
        Label(message, systemImage: "exclamationmark.triangle")
            .font(.caption)
            .foregroundStyle(.red)
            .padding(4)
            .border(.red)
            .onAppear { FeatureGateDiagnostics.report(message) }
    }
}

private struct FeatureGate<Key: FeatureFlagKey>: ViewModifier {
    let flags: FeatureFlagManager<Key>
    let flag: Key

    func body(content: Content) -> some View {
        if flags.snapshot.isEnabled(flag) { content }
    }
}

private struct FeatureSwap<Key: FeatureFlagKey, Replacement: View>: ViewModifier {
    let flags: FeatureFlagManager<Key>
    let flag: Key
    let replacement: Replacement

    func body(content: Content) -> some View {
        if flags.snapshot.isEnabled(flag) { replacement } else { content }
    }
}
#Preview("Gates") {
    let flags = PreviewFlags.manager()
    List {
        Text("Shown: the redesign is on").featureGated(PreviewFlag.redesign)
        Text("Hidden: the drawer is off").featureGated(PreviewFlag.drawer)
        Text("Legacy composer").withFeature(PreviewFlag.redesign) { Text("New composer") }
    }
    .featureFlags(flags)
}

#Preview("Misconfigured gate") {
    // No .featureFlags(_:) above: outside release builds the gate says so.
    Text("Never shown").featureGated(PreviewFlag.redesign)
}
#endif
