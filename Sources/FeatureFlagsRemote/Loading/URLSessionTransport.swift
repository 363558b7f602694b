import FeatureFlags
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession`, from FoundationNetworking on Linux.
///
/// - Its session has no URL cache and no cookies, so `ETag` revalidation stays with the loader
///   (a 304 reaches it as a 304, not as a replayed 200).
/// - The body streams to the loader chunk by chunk, and the download is cancelled as soon as
///   the loader stops reading (a body past the size limit).
/// - Redirects follow ``RedirectPolicy``: same origin only, at most five; a refused redirect
///   throws ``RemoteLoadError`` with code `redirectRefused`, so credentials never reach another
///   host.
public struct URLSessionTransport: HTTPTransport {
    private let owner: SessionOwner

    /// A transport over an ephemeral session without a URL cache or cookies.
    public init(redirectPolicy: RedirectPolicy = RedirectPolicy()) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        self.init(configuration: configuration, redirectPolicy: redirectPolicy)
    }

    /// A transport over a session made from `configuration` (give it a `urlCache` of `nil`).
    /// The transport owns the session and its delegate.
    public init(configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy = RedirectPolicy()) {
        self.owner = SessionOwner(configuration: configuration, redirectPolicy: redirectPolicy)
    }

    /// Sends `request`, its body streamed back; a refused redirect throws ``RemoteLoadError`` with code `redirectRefused`.
    public func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPStreamingResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headerFields {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        let task = owner.session.dataTask(with: urlRequest)
        let delegate = owner.delegate
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.register(task, origin: request.url, head: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Invalidates the session when the last copy of the transport goes away (a session keeps
/// its delegate alive until then).
private final class SessionOwner: Sendable {
    let session: URLSession
    let delegate: URLSessionTransportDelegate

    init(configuration: URLSessionConfiguration, redirectPolicy: RedirectPolicy) {
        let delegate = URLSessionTransportDelegate(redirectPolicy: redirectPolicy)
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
