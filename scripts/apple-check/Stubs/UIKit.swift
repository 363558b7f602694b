// UIKit, as the project uses it. On watchOS the module exists with a few types (UIImage,
// UIColor, UIFont), so `canImport(UIKit)` is true there, but text-input types are not available.
import Foundation

// https://developer.apple.com/documentation/uikit/uikeyboardtype — iOS 2, tvOS 9, visionOS 1
// (Mac Catalyst); not on watchOS.
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
public enum UIKeyboardType: Int, Sendable {
    case `default`, asciiCapable, numbersAndPunctuation, URL, numberPad, phonePad, namePhonePad,
        emailAddress, decimalPad, twitter, webSearch, asciiCapableNumberPad
}

// The shake detector of the debug menu's presenter (iOS only in the project). UIResponder,
// UIViewController and UIEvent — iOS 2, tvOS 9, visionOS 1 (Mac Catalyst); not on watchOS; each
// `@MainActor`.
// https://developer.apple.com/documentation/uikit/uiresponder — canBecomeFirstResponder,
// becomeFirstResponder(), motionEnded(_:with:)
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
@MainActor open class UIResponder: NSObject {
    open var canBecomeFirstResponder: Bool { false }
    @discardableResult open func becomeFirstResponder() -> Bool { true }
    open func motionEnded(_ motion: UIEvent.EventSubtype, with event: UIEvent?) {}
}
// https://developer.apple.com/documentation/uikit/uiviewcontroller — init(nibName:bundle:),
// init(coder:), viewDidAppear(_:)
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
@MainActor open class UIViewController: UIResponder {
    public init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) { super.init() }
    public required init?(coder: NSCoder) { super.init() }
    open func viewDidAppear(_ animated: Bool) {}
}
// https://developer.apple.com/documentation/uikit/uievent/eventsubtype
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
@MainActor open class UIEvent: NSObject {
    public enum EventSubtype: Int, Sendable {
        case none = 0, motionShake = 1
        case remoteControlPlay = 100, remoteControlPause = 101
    }
}

// Flushing flag events when the app enters the background (FeatureFlagsEvents). UIApplication —
// iOS 2, tvOS 9, visionOS 1 (Mac Catalyst); not on watchOS; `@MainActor`.
// https://developer.apple.com/documentation/uikit/uiapplication — shared,
// didEnterBackgroundNotification, beginBackgroundTask(withName:expirationHandler:),
// endBackgroundTask(_:); willEnterForegroundNotification (session health: a session begins when
// the app returns to the foreground; iOS 4, tvOS 9, visionOS 1, not on watchOS)
// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
@MainActor open class UIApplication: UIResponder {
    public class var shared: UIApplication { UIApplication() }
    nonisolated public static let didEnterBackgroundNotification = Notification.Name("UIApplicationDidEnterBackgroundNotification")
    nonisolated public static let willEnterForegroundNotification = Notification.Name("UIApplicationWillEnterForegroundNotification")
    open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { .invalid }
    open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
}

// The device class of the app context (FeatureFlags, iOS only in the project). UIDevice — iOS 2,
// tvOS 9, visionOS 1 (Mac Catalyst); not on watchOS; `@MainActor`.
// https://developer.apple.com/documentation/uikit/uidevice/current — class var current
// https://developer.apple.com/documentation/uikit/uidevice/userinterfaceidiom — iOS 3.2
// https://developer.apple.com/documentation/uikit/uiuserinterfaceidiom — mac: iOS 14, vision: iOS 17
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
public enum UIUserInterfaceIdiom: Int, Sendable {
    case unspecified = -1, phone = 0, pad = 1, tv = 2, carPlay = 3, mac = 5, vision = 6
}
@available(iOS 2.0, tvOS 9.0, visionOS 1.0, *)
@available(watchOS, unavailable)
@MainActor open class UIDevice: NSObject {
    public class var current: UIDevice { UIDevice() }
    open var userInterfaceIdiom: UIUserInterfaceIdiom { .phone }
}
