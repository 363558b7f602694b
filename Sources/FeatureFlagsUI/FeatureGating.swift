#if canImport(SwiftUI)
import FeatureFlags
import SwiftUI

extension View {
    /// Makes `flags` available to ``featureGated(_:)`` and ``withFeature(_:content:)`` in this
    /// view and its descendants.
    public func featureFlags<Key: FeatureFlagKey>(_ flags: FeatureFlagManager<Key>) -> some View {
        environment(\.featureFlagsObject, flags)
    }

    /// Shows the view only while `flag` is on, reading the flags set with ``featureFlags(_:)``.
    public func featureGated<Key: FeatureFlagKey>(_ flag: Key) -> some View {
        modifier(EnvironmentFeatureGate(flag: flag, replacement: Optional<EmptyView>.none))
    }

    /// Swaps in `content` while `flag` is on, reading the flags set with ``featureFlags(_:)``.
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

/// Gates on flags from the environment. Without flags in the environment the flag counts as
/// off, so unfinished features stay hidden.
private struct EnvironmentFeatureGate<Key: FeatureFlagKey, Replacement: View>: ViewModifier {
    @Environment(\.featureFlagsObject) private var object
    let flag: Key
    let replacement: Replacement?

    func body(content: Content) -> some View {
        let isOn = (object as? FeatureFlagManager<Key>)?.snapshot.isEnabled(flag) ?? false
        if let replacement {
            if isOn { replacement } else { content }
        } else if isOn {
            content
        }
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
