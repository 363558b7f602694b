import FeatureFlags

/// Two Boolean flags for the tests that read flags while recording events.
enum TestFlag: String, CaseIterable, FeatureFlagKey {
    case chatViewRedesign = "chat_view_redesign"
    case offlineMode = "offline_mode"

    var metadata: FlagMetadata<TestFlag> { FlagMetadata(FlagDefinition.displayName(forKey: rawValue)) }
}
