// The demo: the 34-flag registry on embedded defaults, no setup needed.
//
//     swift run feature-flags-demo
import ExampleFlags
import FeatureFlags
import FeatureFlagsRemote

let configurations = BuildConfiguration.allCases

func cell(_ value: FlagValue) -> String {
    FlagDebugModel.display(value)
}

func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

// One manager per build configuration, each on in-memory stores.
let managers = configurations.map { FeatureFlagManager<AppFlag>(buildConfiguration: $0) }

print("Resolved flags for each build configuration (phases 0–2 are on in debug builds)\n")
var rows: [[String]] = []
for flag in AppFlag.allCases {
    rows.append([flag.rawValue, flag.metadata.phase.map(String.init) ?? "-"] + managers.map { $0.isEnabled(flag) ? "on" : "off" })
}
let typedKeys = ["page_size", "stream_flush_interval", "onboarding_variant", "composer_style", "retry_policy"]
for key in typedKeys {
    rows.append([key, "-"] + managers.map { cell($0.engine.value(forKey: key) ?? .null) })
}
print(TextTable.render(header: ["flag", "phase"] + configurations.map(\.rawValue), rows: rows), terminator: "")

let alpha = managers[1]
print("\nIn the alpha build, override sidebar_redesign on:")
alpha.setOverride(.sidebarRedesign, to: true)
print("  " + alpha.details(.sidebarRedesign).description)
print("Override navigation_split_view on as well, which sidebar_redesign requires:")
alpha.setOverride(.navigationSplitView, to: true)
print("  " + alpha.details(.sidebarRedesign).description)
for report in alpha.details(.sidebarRedesign).layers {
    print("    \(report)")
}
print("Clear the overrides:")
alpha.removeAllOverrides()
print("  " + alpha.details(.sidebarRedesign).description)

let release = managers[3]
print("\nIn the App Store build overrides are not permitted:")
release.setOverride(.terminalRedesign, to: true)
print("  " + release.details(.terminalRedesign).description)

print("\nThe app's runtime configuration (Examples/ExampleFlags/AppRuntimeConfiguration.swift), by build:")
for (configuration, manager) in zip(configurations, managers) {
    let config = manager.configuration(AppRuntimeConfiguration.self)
    print(
        "  \(pad(configuration.rawValue, 9)) resend cooldown \(config.auth.magicLinkResendCooldown), "
            + "cues page \(config.cues.pageSize), flush \(config.analytics.flushInterval), "
            + "developer menu \(config.devTools.isDeveloperMenuAvailable ? "on" : "off")")
}

print("\nThe debug menu edits typed values in the debug build, checking what is typed:")
let debug = managers[0]
let menu = FlagDebugModel(debug, choices: [FlagChoices(AppConfig.composerStyle)])
for (key, text) in [("page_size", "25"), ("page_size", "lots"), ("composer_style", "floating"), ("composer_style", "huge")] {
    do {
        try menu.setOverride(parsing: text, forKey: key)
        print("  \(key) = \(text): now \(cell(debug.engine.value(forKey: key) ?? .null))")
    } catch {
        print("  \(key) = \(text): \(error)")
    }
}
