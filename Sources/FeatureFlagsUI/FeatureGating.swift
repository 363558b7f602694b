#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

#if canImport(os)
import os
#endif

extension View {
    /// Makes `flags` available to ``featureGated(_:)`` and ``withFeature(_:content:)`` in this
    /// view and its descendants.
    public func featureFlags<Key: FeatureFlagKey>(_ flags: FeatureFlagManager<Key>) -> some View {
        environment(\.featureFlagsObject, flags)
    }

    /// Shows the view only while `flag` is on, reading the flags set with ``featureFlags(_:)``.
    ///
    /// Without those flags in the environment the flag counts as off; debug builds of the
    /// package then show a placeholder saying so and log it, rather than hide the view silently.
    public func featureGated<Key: FeatureFlagKey>(_ flag: Key) -> some View {
        modifier(EnvironmentFeatureGate(flag: flag, replacement: Optional<EmptyView>.none))
    }

    /// Swaps in `content` while `flag` is on, reading the flags set with ``featureFlags(_:)``.
    /// Without them, the original view stays and debug builds log the misconfiguration.
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
    /// The `FeatureFlagManager` instance set with `featureFlags(_:)`, type-erased because environment
    /// values cannot be generic.
    var featureFlagsObject: (any AnyObject & Sendable)? {
        get { self[FeatureFlagsObjectKey.self] }
        set { self[FeatureFlagsObjectKey.self] = newValue }
    }
}

private struct FeatureFlagsObjectKey: EnvironmentKey {
    static let defaultValue: (any AnyObject & Sendable)? = nil
}

/// Whether gates report missing flags: in debug builds of the package, which Xcode builds in
/// the app's own configuration.
enum FeatureGateDiagnostics {
    #if DEBUG
    static let reportsMisconfiguration = true
    #else
    static let reportsMisconfiguration = false
    #endif

    /// Logs a misconfigured gate (a fault in the unified log, without trapping).
    static func report(_ message: String) {
        #if canImport(os)
        os.Logger(subsystem: "FeatureFlagsUI", category: "featureGated").fault("\(message, privacy: .public)")
        #endif
    }
}

/// Gates on flags from the environment; the decision is ``FeatureGateDecision``'s.
private struct EnvironmentFeatureGate<Key: FeatureFlagKey, Replacement: View>: ViewModifier {
    @Environment(\.featureFlagsObject) private var object
    let flag: Key
    let replacement: Replacement?

    func body(content: Content) -> some View {
        let decision = FeatureGateDecision.decide(
            flag, environmentFlags: object, reportsMisconfiguration: FeatureGateDiagnostics.reportsMisconfiguration)
        switch decision {
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

/// What a misconfigured `featureGated(_:)` shows in debug builds instead of nothing.
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
#endif
