import FeatureFlags

// chat_view_redesign in a comment is not a reference.
struct ChatView {
    let flags: FeatureFlagManager<AppFlag>

    var title: String {
        if flags.isEnabled(.chatViewRedesign) {
            return "New chat"
        }
        return AppFlag.chatViewRedesign.metadata.displayName
    }

    var canDictate: Bool { flags[.voiceInput] }

    var pageSize: Int { flags.value(AppConfig.pageSize) + flags.chatPageSize }

    func debugMenu() {
        try? flags.engine.setOverride(true, forKey: "voice_input")
        _ = flags.engine.value(forKey: "chat_redesign")
        _ = flags.engine.details(forKey: "chat_view_redesign")
        let name = "redesign"
        _ = flags.engine.value(forKey: "chat_view_\(name)")
        _ = ["old_onboarding"]
    }
}
