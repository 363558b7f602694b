import FeatureFlags
import Foundation

extension AppEnvironments {
    /// The debug menu's environment switcher over these environments, each shown with its base
    /// URL.
    ///
    /// ```swift
    /// FlagDebugView(flags, remote: loader,
    ///     environments: environments.debugSwitcher(current: environment.name) { chosen in
    ///         UserDefaults.standard.set(chosen.name.rawValue, forKey: "APP_ENV")
    ///         restartRemoteConfiguration(with: chosen)
    ///     })
    /// ```
    ///
    /// - Parameter select: called with the chosen environment when it differs from the current one.
    public func debugSwitcher(
        current: AppEnvironment.Name,
        footnote: String = "Switching environments reloads remote values from the chosen server.",
        select: @escaping @Sendable (AppEnvironment) -> Void
    ) -> FlagDebugEnvironmentSwitcher {
        FlagDebugEnvironmentSwitcher(
            options: AppEnvironment.Name.allCases.map { .init(name: $0.rawValue, detail: self[$0].baseURL.absoluteString) },
            current: current.rawValue, footnote: footnote
        ) { [self] name in
            guard let name = AppEnvironment.Name(rawValue: name) else { return }
            select(self[name])
        }
    }
}
