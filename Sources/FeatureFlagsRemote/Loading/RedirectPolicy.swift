import Foundation

/// Which redirects a transport follows: only to the same origin (scheme, host and port) as the
/// request the loader made, and at most ``maximumRedirects`` of them.
///
/// Requests carry credentials (`Authorization`, `X-API-Key` in
/// ``RemoteConfigurationLoader/Configuration/headerFields``), so a redirect to another origin is
/// refused rather than followed with or without them: the response counts as a failure
/// (``RemoteLoadError/Code/redirectRefused``) and the loader backs off. Point the environment at
/// the final URL instead. ``URLSessionTransport`` applies it; other transports can too.
///
/// ```swift
/// let policy = RedirectPolicy(maximumRedirects: 3)
/// policy.decision(from: original, to: target, redirectsSoFar: 0)  // .follow or .refuse(reason)
/// ```
public struct RedirectPolicy: Sendable, Hashable {
    /// What to do with one redirect.
    public enum Decision: Sendable, Hashable {
        /// Follow it.
        case follow
        /// Don't; `reason` says why in one sentence (hosts, never paths or queries).
        case refuse(reason: String)
    }

    /// The most redirects followed for one request (5 by default).
    public var maximumRedirects: Int

    /// A policy following at most `maximumRedirects` same-origin redirects (0 or more).
    public init(maximumRedirects: Int = 5) {
        self.maximumRedirects = max(0, maximumRedirects)
    }

    /// Whether to follow a redirect from the loader's request `original` to `target`, when
    /// `redirectsSoFar` were followed already for it.
    public func decision(from original: URL, to target: URL, redirectsSoFar: Int) -> Decision {
        guard let origin = Origin(original), let destination = Origin(target) else {
            return .refuse(reason: "The server redirected to a URL without a host.")
        }
        guard origin == destination else {
            return .refuse(
                reason:
                    "The server redirected from \(origin) to another origin, \(destination); redirects are followed only within the same origin, so credentials never leave it."
            )
        }
        guard redirectsSoFar < maximumRedirects else {
            return .refuse(
                reason: "The server redirected more than \(maximumRedirects) times; following stopped there.")
        }
        return .follow
    }

    /// Scheme, host and port, with the scheme's default port filled in.
    struct Origin: Hashable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int?

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else {
                return nil
            }
            self.scheme = scheme
            self.host = host
            self.port = url.port ?? Self.defaultPorts[scheme]
        }

        static let defaultPorts = ["http": 80, "https": 443]

        var description: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }
    }
}
