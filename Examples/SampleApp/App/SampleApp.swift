// The sample app's entry point: one window showing the flags, with the debug menu a tap away.
// See Examples/SampleApp/README.md to open it in Xcode and point it at a local flag server.
#if os(iOS)
import FeatureFlagsUI
import SwiftUI

@main
struct SampleApp: App {
    /// Built once, when the app launches.
    private let services = SampleServices()

    var body: some Scene {
        WindowGroup {
            NavigationStack {
                ContentView(flags: services.flags, loader: services.loader, settings: services.settings)
            }
            .refreshesFeatureFlags(services.loader)
            .task { await services.start() }
        }
    }
}
#endif
