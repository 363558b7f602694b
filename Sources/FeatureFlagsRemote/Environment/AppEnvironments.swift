import Foundation
import Logging

/// The app's three environments, declared once, from which one is chosen at launch.
///
/// ```swift
/// let environments = AppEnvironments(
///     dev: URL(string: "https://dev.api.example.com")!,
///     stage: URL(string: "https://stage.api.example.com")!,
///     prod: URL(string: "https://api.example.com")!,
///     bundleIdentifier: "com.example.app", appVersion: "3.2.0", build: "412")
/// let environment = environments.environment(
///     named: ProcessInfo.processInfo.environment["APP_ENV"], fallback: .prod)
/// ```
public struct AppEnvironments: Sendable, Hashable {
    /// The development environment.
    public var dev: AppEnvironment
    /// The staging environment.
    public var stage: AppEnvironment
    /// The production environment.
    public var prod: AppEnvironment

    /// The app's three environments.
    public init(dev: AppEnvironment, stage: AppEnvironment, prod: AppEnvironment) {
        self.dev = dev
        self.stage = stage
        self.prod = prod
    }

    /// Three environments that differ only in their base URLs.
    public init(dev: URL, stage: URL, prod: URL, bundleIdentifier: String, appVersion: String, build: String) {
        self.init(
            dev: AppEnvironment(.dev, baseURL: dev, bundleIdentifier: bundleIdentifier, appVersion: appVersion, build: build),
            stage: AppEnvironment(
                .stage, baseURL: stage, bundleIdentifier: bundleIdentifier, appVersion: appVersion, build: build),
            prod: AppEnvironment(.prod, baseURL: prod, bundleIdentifier: bundleIdentifier, appVersion: appVersion, build: build))
    }

    /// The environment called `name`.
    public subscript(name: AppEnvironment.Name) -> AppEnvironment {
        switch name {
        case .dev: dev
        case .stage: stage
        case .prod: prod
        }
    }

    /// The environment whose name is `rawName` (`"dev"`, `"stage"`, `"prod"`).
    ///
    /// ```swift
    /// let environment = try environments.environment(named: "stage")
    /// ```
    ///
    /// - Throws: ``UnknownEnvironmentError`` naming `rawName` and the known names, for a name
    ///   that is not one of them (`"staging"`, a typo). Never touches the network.
    public func environment(named rawName: String) throws(UnknownEnvironmentError) -> AppEnvironment {
        guard let name = AppEnvironment.Name(rawValue: rawName) else {
            throw UnknownEnvironmentError(name: rawName)
        }
        return self[name]
    }

    /// The environment whose name is `rawName`, or the `fallback` the caller chooses when it is
    /// `nil`; an unknown name also falls back, and logs a warning that names it and the known
    /// names, so a typo in a launch setting doesn't go unnoticed.
    ///
    /// ```swift
    /// let environment = environments.environment(
    ///     named: ProcessInfo.processInfo.environment["APP_ENV"], fallback: .prod, logger: logger)
    /// ```
    public func environment(
        named rawName: String?, fallback: AppEnvironment.Name, logger: Logger = Logger(label: "feature-flags")
    ) -> AppEnvironment {
        guard let rawName else { return self[fallback] }
        do {
            return try environment(named: rawName)
        } catch {
            logger.warning(
                "\(error) Using the fallback environment '\(fallback)'.", metadata: ["environment": "\(fallback)"])
            return self[fallback]
        }
    }
}
