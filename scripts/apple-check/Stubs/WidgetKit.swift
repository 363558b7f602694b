// WidgetKit, as the project uses it (the sharing module's timeline reload and the example
// widget): each declaration transcribed from its page on
// https://developer.apple.com/documentation/widgetkit/ (or swiftui/ for the two protocols SwiftUI
// declares and WidgetKit re-exports), with the page's isolation and availability. WidgetKit has
// no tvOS (stubs.txt); on visionOS it starts at 26.0. Bodies are stubs.
@_exported import Foundation
@_exported import SwiftUI

private func stub<T>() -> T { fatalError("Apple check stub") }

// widgetcenter — `class WidgetCenter`; iOS 14, macOS 11, watchOS 9, visionOS 26.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public final class WidgetCenter {
    // widgetcenter/shared — `class var shared: WidgetCenter { get }`
    public static var shared: WidgetCenter { stub() }
    // widgetcenter/reloadtimelines(ofkind:) — `func reloadTimelines(ofKind kind: String)`
    public func reloadTimelines(ofKind kind: String) {}
}

// timelineentry — `protocol TimelineEntry`; `var date: Date { get }`.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public protocol TimelineEntry {
    var date: Date { get }
}

// timelineprovidercontext — `struct TimelineProviderContext`
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public struct TimelineProviderContext {}

// timelinereloadpolicy — `struct TimelineReloadPolicy` (Equatable); `static let never`,
// `static let atEnd`, declared here as computed, since the page lists no Sendable conformance.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public struct TimelineReloadPolicy: Equatable {
    public static var never: TimelineReloadPolicy { TimelineReloadPolicy() }
    public static var atEnd: TimelineReloadPolicy { TimelineReloadPolicy() }
}

// timeline — `struct Timeline<EntryType> where EntryType : TimelineEntry`; init(entries:policy:).
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public struct Timeline<EntryType: TimelineEntry> {
    public let entries: [EntryType]
    public init(entries: [EntryType], policy: TimelineReloadPolicy) { self.entries = entries }
}

// timelineprovider — `protocol TimelineProvider`; getSnapshot/getTimeline are
// `@preconcurrency` with `@escaping @Sendable` completions.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
public protocol TimelineProvider {
    associatedtype Entry: TimelineEntry
    typealias Context = TimelineProviderContext
    // timelineprovider/placeholder(in:)
    func placeholder(in context: Self.Context) -> Self.Entry
    // timelineprovider/getsnapshot(in:completion:)
    @preconcurrency func getSnapshot(in context: Self.Context, completion: @escaping @Sendable (Self.Entry) -> Void)
    // timelineprovider/gettimeline(in:completion:)
    @preconcurrency func getTimeline(in context: Self.Context, completion: @escaping @Sendable (Timeline<Self.Entry>) -> Void)
}

// swiftui/widgetconfiguration — `@MainActor @preconcurrency protocol WidgetConfiguration`;
// iOS 14, macOS 11, watchOS 9, visionOS 1 (tvOS: not listed).
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol WidgetConfiguration {}

// swiftui/widget — `@MainActor @preconcurrency protocol Widget`; `init()`, `var body: Self.Body`.
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol Widget {
    associatedtype Body: WidgetConfiguration
    init()
    @MainActor @preconcurrency var body: Self.Body { get }
}

// staticconfiguration — `@MainActor @preconcurrency struct StaticConfiguration<Content> where Content : View`
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
@MainActor @preconcurrency public struct StaticConfiguration<Content: View>: WidgetConfiguration {
    // staticconfiguration/init(kind:provider:content:)
    @MainActor @preconcurrency public init<Provider: TimelineProvider>(
        kind: String, provider: Provider, @ViewBuilder content: @escaping (Provider.Entry) -> Content
    ) {}
}

@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 1.0, *)
extension WidgetConfiguration {
    // swiftui/widgetconfiguration/configurationdisplayname(_:)-… — `nonisolated func
    // configurationDisplayName(_ displayName: LocalizedStringKey) -> some WidgetConfiguration`
    nonisolated public func configurationDisplayName(_ displayName: LocalizedStringKey) -> some WidgetConfiguration {
        self
    }
    // swiftui/widgetconfiguration/description(_:)-… — `nonisolated func description(_ description:
    // LocalizedStringKey) -> some WidgetConfiguration`
    nonisolated public func description(_ description: LocalizedStringKey) -> some WidgetConfiguration { self }
}

// swiftui/widgetbundlebuilder — `@resultBuilder struct WidgetBundleBuilder`; buildBlock(_:) for
// one widget — iOS 14, macOS 11, watchOS 9, visionOS 1
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 1.0, *)
@resultBuilder public struct WidgetBundleBuilder {
    public static func buildBlock<Content: Widget>(_ content: Content) -> Content { content }
}
// swiftui/widgetbundle — `@MainActor @preconcurrency protocol WidgetBundle`; `associatedtype Body:
// Widget`, init() `@MainActor @preconcurrency init()`, body `@WidgetBundleBuilder @MainActor
// @preconcurrency var body: Self.Body { get }` — iOS 14, macOS 11, watchOS 9, visionOS 1
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 1.0, *)
@MainActor @preconcurrency public protocol WidgetBundle {
    associatedtype Body: Widget
    @MainActor @preconcurrency init()
    @WidgetBundleBuilder @MainActor @preconcurrency var body: Self.Body { get }
}
// swiftui/widgetbundle/main() — `@MainActor @preconcurrency static func main()` — iOS 14, macOS
// 11, watchOS 9, visionOS 26
@available(iOS 14.0, macOS 11.0, watchOS 9.0, visionOS 26.0, *)
extension WidgetBundle {
    @MainActor @preconcurrency public static func main() {}
}
