#if canImport(UIKit) && !os(watchOS)
import Foundation
import UIKit

extension FlagEventDelivery {
    /// Flushes whenever the app enters the background, within the background time UIKit grants
    /// (`beginBackgroundTask`), so that events reach the server before the app is suspended.
    /// Returns the observer; keep it for as long as the app runs. The work is ``flush()``, which
    /// every platform shares.
    @MainActor
    public func flushWhenEnteringBackground() -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: .main
        ) { [weak self] _ in
            guard let self else { return }
            MainActor.assumeIsolated {
                let application = UIApplication.shared
                let task = application.beginBackgroundTask(withName: "Flag events", expirationHandler: nil)
                Task { @MainActor in
                    await self.flush()
                    application.endBackgroundTask(task)
                }
            }
        }
    }
}
#endif
