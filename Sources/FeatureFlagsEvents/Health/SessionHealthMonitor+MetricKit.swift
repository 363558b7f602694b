#if canImport(MetricKit)
import Foundation
import MetricKit

/// Hands MetricKit's crash diagnostics to a ``SessionHealthMonitor``, which reports those its
/// markers did not already count as `$crash` (see
/// ``SessionHealthMonitor/reportCrashDiagnostics(_:)``). A thin adapter: MetricKit's types are
/// read into ``CrashDiagnostic``s here, and every decision is the monitor's.
///
/// MetricKit exists on iOS, macOS and visionOS (not on tvOS or watchOS, where the markers alone
/// report crashes).
///
/// ```swift
/// let crashes = SessionHealthMetricKitSubscriber(monitor: health)
/// crashes.subscribe()  // keep `crashes` for as long as the app runs
/// ```
@available(iOS 14.0, macOS 12.0, visionOS 1.0, *)
public final class SessionHealthMetricKitSubscriber: NSObject, MXMetricManagerSubscriber {
    private let monitor: SessionHealthMonitor

    /// A subscriber handing diagnostics to `monitor`; call `subscribe()` to start receiving them.
    public init(monitor: SessionHealthMonitor) {
        self.monitor = monitor
        super.init()
    }

    /// Adds the subscriber to MetricKit's shared manager (which holds it weakly).
    public func subscribe() {
        MXMetricManager.shared.add(self)
    }

    /// Reads the payloads' crash diagnostics and hands them to the monitor (MetricKit may call it
    /// on any thread).
    public func didReceive(_ payloads: [MXDiagnosticPayload]) {
        let crashes = payloads.flatMap { payload in
            (payload.crashDiagnostics ?? []).map { crash in
                CrashDiagnostic(
                    begin: payload.timeStampBegin, end: payload.timeStampEnd, signal: crash.signal?.intValue,
                    exceptionType: crash.exceptionType?.intValue)
            }
        }
        guard !crashes.isEmpty else { return }
        let monitor = self.monitor
        Task { await monitor.reportCrashDiagnostics(crashes) }
    }
}
#endif
