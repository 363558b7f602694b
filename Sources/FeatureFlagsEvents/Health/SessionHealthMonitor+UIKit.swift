#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

extension SessionHealthMonitor {
    /// Ends the session when the app enters the background, within the background time UIKit
    /// grants (`beginBackgroundTask`), and begins a new one when it returns to the foreground.
    /// A suspended app may be ended by the system without being told, which is no crash: the
    /// session ends before suspension. Returns the observers; keep them for as long as the app
    /// runs. The work is ``endSession()`` and ``beginSession()``, which every platform shares.
    @MainActor
    public func followAppLifecycle() -> [any NSObjectProtocol] {
        let center = NotificationCenter.default
        let background = center.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
        ) { [weak self] _ in
            guard let self else { return }
            MainActor.assumeIsolated {
                let application = UIApplication.shared
                let task = application.beginBackgroundTask(withName: "Session health", expirationHandler: nil)
                // Registered now, so that a return to the foreground begins after this end.
                let ending = self.scheduleEnd()
                Task { @MainActor in
                    await ending.value
                    application.endBackgroundTask(task)
                }
            }
        }
        let foreground = center.addObserver(
            forName: UIApplication.willEnterForegroundNotification, object: nil, queue: .main
        ) { [weak self] _ in
            self?.scheduleBegin()
        }
        return [background, foreground]
    }
}
#endif
