#if canImport(WidgetKit)
import WidgetKit

extension SharedFlagPublisher {
    /// Reloads the timelines of the widgets of `kinds` after every publication that changed the
    /// flags, until the returned task is cancelled.
    ///
    /// ```swift
    /// let reloading = publisher.reloadWidgetTimelines(ofKinds: ["FlagsWidget"])
    /// ```
    ///
    /// WidgetKit has no `WidgetCenter` on visionOS before 26; there the task only drains the
    /// changes.
    public func reloadWidgetTimelines(ofKinds kinds: [String]) -> Task<Void, Never> {
        onEachChange { _ in WidgetTimelines.reload(ofKinds: kinds) }
    }
}

/// The one WidgetKit call.
enum WidgetTimelines {
    @MainActor
    static func reload(ofKinds kinds: [String]) {
        guard #available(visionOS 26.0, *) else { return }
        for kind in kinds {
            WidgetCenter.shared.reloadTimelines(ofKind: kind)
        }
    }
}
#endif
