// A widget extension that shows what the app's flags say, read from the file the app publishes
// to its App Group (see the "Sharing flags with extensions" article). The widget extension's
// own target adds `@main` on a `WidgetBundle` listing `FlagsWidget()`; the app runs
// `SharedFlagPublisher(flags:file:)` and `reloadWidgetTimelines(ofKinds: [FlagsWidget.kind])`.
#if canImport(WidgetKit) && canImport(SwiftUI)
import ExampleFlags
import FeatureFlags
import FeatureFlagsSharing
import Foundation
import SwiftUI
import WidgetKit

/// The App Group the app and the widget share.
let appGroup = "group.com.example.feature-flags"

/// What one timeline entry shows.
@available(visionOS 26.0, *)
struct FlagsEntry: TimelineEntry, Sendable {
    let date: Date
    let liveActivities: Bool
    let pageSize: Int
    let status: String
}

@available(visionOS 26.0, *)
struct FlagsProvider: TimelineProvider {
    /// Reads the shared file: no network, well under a millisecond.
    private func entry(at date: Date) -> FlagsEntry {
        guard let reader = SharedFlagReader<AppFlag>(appGroup: appGroup) else {
            return FlagsEntry(date: date, liveActivities: false, pageSize: 0, status: "no App Group entitlement")
        }
        let flags = reader.read()
        return FlagsEntry(
            date: date, liveActivities: flags.isEnabled(.liveActivities),
            pageSize: flags.value(AppRuntimeConfiguration.Flags.cuesPageSize),
            status: "\(flags.status), revision \(flags.revision)")
    }

    func placeholder(in context: Context) -> FlagsEntry {
        FlagsEntry(date: Date(), liveActivities: false, pageSize: 20, status: "placeholder")
    }

    func getSnapshot(in context: Context, completion: @escaping @Sendable (FlagsEntry) -> Void) {
        completion(entry(at: Date()))
    }

    /// One entry; the app reloads the timeline when it publishes a change.
    func getTimeline(in context: Context, completion: @escaping @Sendable (Timeline<FlagsEntry>) -> Void) {
        completion(Timeline(entries: [entry(at: Date())], policy: .never))
    }
}

@available(visionOS 26.0, *)
struct FlagsWidgetView: View {
    let entry: FlagsEntry

    var body: some View {
        VStack(alignment: .leading) {
            Text(entry.liveActivities ? "Live Activities on" : "Live Activities off")
            Text("Page size \(entry.pageSize)")
            Text(verbatim: entry.status).font(.caption)
        }
    }
}

@available(visionOS 26.0, *)
public struct FlagsWidget: Widget {
    /// The kind the app passes to `reloadWidgetTimelines(ofKinds:)`.
    public static let kind = "FlagsWidget"

    public init() {}

    public var body: some WidgetConfiguration {
        StaticConfiguration(kind: Self.kind, provider: FlagsProvider()) { entry in
            FlagsWidgetView(entry: entry)
        }
        .configurationDisplayName("Feature flags")
        .description("What the app's flags say.")
    }
}
#endif
