import Foundation

/// Reads an ``AppContext`` from somewhere: the system (``SystemAppContextProvider``), or fixed
/// values in tests.
public protocol AppContextProvider: Sendable {
    /// The context as read now. Called once per ``AppContext`` made from the provider, never on a
    /// flag check.
    func appContext() -> AppContext
}

/// Reads the app context from the system: the main bundle's `CFBundleShortVersionString` and
/// `CFBundleVersion`, `ProcessInfo`'s operating system version, the operating system the code
/// was compiled for (``FlagEventSource/currentPlatform``), the device class, and `Locale.current`.
///
/// A value the system does not have (a command-line tool has no bundle version) is `nil`, and
/// the field is left out.
public struct SystemAppContextProvider: AppContextProvider {
    /// The system's provider.
    public init() {}

    /// Reads the context from the main bundle, `ProcessInfo`, the platform compiled for and `Locale.current`.
    public func appContext() -> AppContext {
        let info = Bundle.main.infoDictionary ?? [:]
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return AppContext(
            appVersion: Self.nonEmpty(info["CFBundleShortVersionString"] as? String),
            appBuild: Self.nonEmpty(info["CFBundleVersion"] as? String),
            osName: FlagEventSource.currentPlatform,
            osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            deviceClass: Self.deviceClass(),
            locale: Self.nonEmpty(Locale.current.identifier))
    }

    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// The device class this code runs on: by platform, and on iOS by the interface idiom (an
    /// iPhone or an iPad; an iPhone or iPad app running on a Mac or a Vision Pro reports the
    /// idiom it was designed for).
    static func deviceClass() -> AppContext.DeviceClass? {
        #if targetEnvironment(macCatalyst) || os(macOS)
        .mac
        #elseif os(iOS) && canImport(UIKit)
        interfaceIdiomClass()
        #elseif os(iOS)
        nil
        #elseif os(watchOS)
        .watch
        #elseif os(tvOS)
        .tv
        #elseif os(visionOS)
        .vision
        #elseif os(Linux)
        .server
        #else
        nil
        #endif
    }
}
