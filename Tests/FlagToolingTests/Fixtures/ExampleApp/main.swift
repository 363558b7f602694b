import FeatureFlags
import FeatureFlagsTesting

let flags = FeatureFlagManager<AppFlag>(buildConfiguration: .internal)

func chatTitle() -> String {
    if flags.isEnabled(.chatViewRedesign) {
        return "chat: redesigned"
    } else {
        return "chat: classic"
    }
}

func chatGuard() -> String {
    guard flags.isEnabled(.chatViewRedesign) else {
        return "guard: off"
    }
    return "guard: on"
}

func combined() -> String {
    var parts: [String] = []
    if flags.isEnabled(.chatViewRedesign) && flags.isEnabled(.voiceInput) {
        parts.append("chat+voice")
    }
    if !flags[.chatViewRedesign] || flags.isEnabled(.offlineMode) {
        parts.append("classic-or-offline")
    }
    if flags.isEnabled(.liquidGlassDesign), flags.isEnabled(AppFlag.chatViewRedesign) {
        parts.append("glass-chat")
    } else if flags.isEnabled(.voiceInput) {
        parts.append("voice")
    } else {
        parts.append("neither")
    }
    return "combined: " + parts.joined(separator: ",")
}

let ternary = flags.isEnabled(.chatViewRedesign) ? "ternary: on" : "ternary: off"
let gated = Text("banner").featureGated(.chatViewRedesign).render()
let styled = Text("title").withFeature(.chatViewRedesign) { $0.bold() }.render()

print(chatTitle())
print(chatGuard())
print(combined())
print(ternary)
print("gated: [\(gated)]")
print("styled: [\(styled)]")
print("page size: \(flags.pageSize)")
print("retry: \(flags.retryPolicy)")
print("---")
print(try FlagManifestExport.jsonString(AppFlag.self, flagSetID: "example-app"), terminator: "")
