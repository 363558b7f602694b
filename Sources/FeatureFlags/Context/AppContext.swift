import Foundation

/// What the app and the device it runs on are: app version and build, operating system name and
/// version, device class and locale. The flags add these to the evaluation context they send
/// (OFREP requests, FeatureFlagsTargeting's context) and to the source of every event, so rules
/// can target an app version and results can be read by app version without any code.
///
/// ``current`` is read once per process from the system (``SystemAppContextProvider``). Every
/// field can be left out, and every field the app sets itself wins over the one read:
///
/// ```swift
/// var context = AppContext.current.excluding(.locale)   // never send the locale
/// context.appVersion = "4.2-beta.1"                     // the app's own value wins
/// ```
///
/// The device class is coarse (`phone`, `pad`, `mac`, `watch`, `tv`, `vision`, `server`): a
/// fine-grained model identifier would help fingerprint a device, so none is read.
public struct AppContext: Sendable, Hashable {
    /// A field of the context; its raw value is the attribute name rules see (`appVersion`…).
    public enum Field: String, Sendable, Hashable, CaseIterable, Codable {
        /// The app's version (`CFBundleShortVersionString`), such as `4.2.1`.
        case appVersion
        /// The app's build number (`CFBundleVersion`), such as `412`.
        case appBuild
        /// The operating system (`iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS`, `Linux`…).
        case osName
        /// The operating system's version as `major.minor.patch`, such as `18.2.0`.
        case osVersion
        /// The kind of device (``DeviceClass``).
        case deviceClass
        /// The user's locale identifier (`Locale.current.identifier`), such as `en_NZ`.
        case locale
    }

    /// The kind of device, never its model.
    public enum DeviceClass: String, Sendable, Hashable, CaseIterable, Codable {
        /// The kind of device: phone, tablet, Mac, watch, TV, headset, or a server (Linux).
        case phone, pad, mac, watch, tv, vision, server
    }

    /// The app's version (`CFBundleShortVersionString`); `nil` when unknown or left out.
    public var appVersion: String?
    /// The app's build number (`CFBundleVersion`); `nil` when unknown or left out.
    public var appBuild: String?
    /// The operating system (`iOS`, `macOS`, `Linux`…); `nil` when left out.
    public var osName: String?
    /// The operating system's version as `major.minor.patch`; `nil` when left out.
    public var osVersion: String?
    /// The kind of device; `nil` when unknown or left out.
    public var deviceClass: DeviceClass?
    /// The user's locale identifier (`en_NZ`); `nil` when left out.
    public var locale: String?
    /// The fields left out of evaluation contexts and events, whatever their values (the app's
    /// opt-out).
    public var excludedFields: Set<Field>

    /// A context with the values given and nothing read from the system.
    public init(
        appVersion: String? = nil, appBuild: String? = nil, osName: String? = nil, osVersion: String? = nil,
        deviceClass: DeviceClass? = nil, locale: String? = nil, excludedFields: Set<Field> = []
    ) {
        self.appVersion = appVersion
        self.appBuild = appBuild
        self.osName = osName
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.locale = locale
        self.excludedFields = excludedFields
    }

    /// The context `provider` reads, with the values `explicit` sets winning and the fields of
    /// `excluded` (and those `explicit` excludes) left out.
    ///
    /// ```swift
    /// let context = AppContext(reading: SystemAppContextProvider(), setting: AppContext(appBuild: "412-hotfix"),
    ///                          excluding: [.locale])
    /// ```
    public init(reading provider: some AppContextProvider, setting explicit: AppContext = AppContext(), excluding excluded: Set<Field> = []) {
        self = provider.appContext().setting(explicit).excluding(excluded)
    }

    /// The context of this process, read once from the system by ``SystemAppContextProvider``.
    ///
    /// On iOS the device class comes from `UIDevice`, which only the main thread may read: read
    /// `current` first on the main thread (building the flags' setup at launch does), or set
    /// ``deviceClass`` yourself.
    public static let current = AppContext(reading: SystemAppContextProvider())

    /// This context with `fields` left out.
    public func excluding(_ fields: Set<Field>) -> AppContext {
        var context = self
        context.excludedFields.formUnion(fields)
        return context
    }

    /// This context with `fields` left out.
    public func excluding(_ fields: Field...) -> AppContext {
        excluding(Set(fields))
    }

    /// This context with every value `explicit` sets in place of this one's, and the fields
    /// either excludes left out.
    public func setting(_ explicit: AppContext) -> AppContext {
        AppContext(
            appVersion: explicit.appVersion ?? appVersion, appBuild: explicit.appBuild ?? appBuild,
            osName: explicit.osName ?? osName, osVersion: explicit.osVersion ?? osVersion,
            deviceClass: explicit.deviceClass ?? deviceClass, locale: explicit.locale ?? locale,
            excludedFields: excludedFields.union(explicit.excludedFields))
    }

    /// The value of `field` as rules and events see it: `nil` when it is unknown or excluded.
    public func value(of field: Field) -> String? {
        guard !excludedFields.contains(field) else { return nil }
        return switch field {
        case .appVersion: appVersion
        case .appBuild: appBuild
        case .osName: osName
        case .osVersion: osVersion
        case .deviceClass: deviceClass?.rawValue
        case .locale: locale
        }
    }

    /// The known, included fields as evaluation-context attributes, by ``Field`` raw value
    /// (`["appVersion": "4.2.1", "osName": "iOS", …]`).
    public var attributes: [String: FlagValue] {
        var attributes: [String: FlagValue] = [:]
        for field in Field.allCases {
            if let value = value(of: field) { attributes[field.rawValue] = .string(value) }
        }
        return attributes
    }
}
