// The sample's one screen: typed flags and their winning layer, the experiment's arm with a
// button that tracks its conversion, and the debug menu.
#if os(iOS)
import ExampleFlags
import FeatureFlags
import FeatureFlagsRemote
import FeatureFlagsUI
import SwiftUI

struct ContentView: View {
    let flags: FeatureFlagManager<AppFlag>
    let loader: RemoteConfigurationLoader
    let settings: SampleServerSettings
    @State private var showsFlags = false
    @State private var messagesSent = 0

    var body: some View {
        // Reading the flags registers with Observation: the view redraws when the server's event
        // stream brings a change, an override is set in the menu, or a user preference changes.
        let config = flags.configuration(AppRuntimeConfiguration.self)
        let redesign = flags.details(.chatViewRedesign)
        List {
            Section("Flags") {
                LabeledContent("Live Activities", value: flags.isEnabled(.liveActivities) ? "on" : "off")
                LabeledContent("Offline mode", value: flags.isEnabled(.offlineMode) ? "on" : "off")
                LabeledContent("Decided by", value: "\(flags.details(.liveActivities).layer)")
            }
            Section("Runtime configuration") {
                LabeledContent("Page size", value: "\(config.cues.pageSize)")
                LabeledContent("Resend cooldown", value: "\(config.auth.magicLinkResendCooldown)")
            }
            Section("Experiment: chat_view_redesign") {
                // Reading the flag records an exposure when the server chose the variant; the
                // button's event is attributed to it, so the experiment's results count it.
                LabeledContent("Your arm", value: redesign.variant ?? "none (not served by the server)")
                Text(flags.isEnabled(.chatViewRedesign) ? "The redesigned chat" : "The classic chat")
                Button("Send a message (conversion)") {
                    flags.track("message_sent")
                    messagesSent += 1
                }
                LabeledContent("Messages sent", value: "\(messagesSent)")
            }
            Section("Server") {
                LabeledContent("Address", value: settings.baseURL.absoluteString)
                LabeledContent("Client token", value: settings.clientToken == nil ? "missing" : "set")
            }
        }
        .navigationTitle("Feature flags")
        .toolbar {
            Button("Flags", systemImage: "flag") { showsFlags = true }
        }
        .flagDebugMenu(flags, isPresented: $showsFlags, remote: loader)
    }
}
#endif
