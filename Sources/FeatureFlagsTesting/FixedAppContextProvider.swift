public import FeatureFlags

/// An app context provider that reads the context it was given, for tests that need a known app
/// version, OS or device class instead of the machine's.
///
/// ```swift
/// let iPad = FixedAppContextProvider(AppContext(appVersion: "4.2.1", osName: "iOS", deviceClass: .pad))
/// let context = AppContext(reading: iPad, excluding: [.locale])
/// ```
public struct FixedAppContextProvider: AppContextProvider {
    /// The context every call returns.
    public var context: AppContext

    /// A provider always returning `context`.
    public init(_ context: AppContext) {
        self.context = context
    }

    /// ``context``.
    public func appContext() -> AppContext { context }
}
