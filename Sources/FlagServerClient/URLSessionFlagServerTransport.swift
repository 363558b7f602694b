import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with `URLSession`, synchronously (for the `flags` command).
///
/// Redirects are never followed, so the token never goes to another origin: the redirect is
/// answered as it is (``FlagServerResponse/location``). The body is read up to the request's
/// limit; beyond it the request is cancelled.
public struct URLSessionFlagServerTransport: FlagServerTransport {
    /// How long to wait for the server: for the connection, each read, and the whole answer.
    public var timeout: TimeInterval

    /// A transport waiting `timeout` seconds (30 by default) for the server.
    public init(timeout: TimeInterval = 30) {
        self.timeout = timeout
    }

    /// Sends `request` and waits for the answer, without following redirects.
    /// - Throws: ``FlagServerTransportError`` when the server cannot be reached or times out, or the
    ///   answer passes the request's limit.
    public func send(_ request: FlagServerRequest) throws(FlagServerTransportError) -> FlagServerResponse {
        let collector = Collector(limit: request.maximumResponseBytes)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        session.dataTask(with: urlRequest).resume()
        collector.done.wait()
        return try collector.result()
    }
}

/// Collects one task's answer; its state is behind a `Mutex`, so it is `Sendable`.
private final class Collector: NSObject, URLSessionDataDelegate, Sendable {
    struct State {
        var status = 0
        var location: String?
        var body = Data()
        var tooLarge = false
        var failure: String?
    }

    let limit: Int
    let state = Mutex(State())
    let done = DispatchSemaphore(value: 0)

    init(limit: Int) {
        self.limit = limit
    }

    func result() throws(FlagServerTransportError) -> FlagServerResponse {
        let state = self.state.withLock { $0 }
        if state.tooLarge { throw .tooLarge(limit: limit) }
        if let failure = state.failure { throw .unreachable(failure) }
        return FlagServerResponse(status: state.status, location: state.location, body: state.body)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let tooLarge = response.expectedContentLength > Int64(limit)
        state.withLock {
            $0.status = http?.statusCode ?? 0
            $0.location = http?.value(forHTTPHeaderField: "Location")
            $0.tooLarge = tooLarge
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = state.withLock { state in
            guard !state.tooLarge else { return true }
            if state.body.count + data.count > limit {
                state.tooLarge = true
                state.body = Data()
                return true
            }
            state.body.append(data)
            return false
        }
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Never follow: the answer is the redirect itself, and the token stays with this origin.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            state.withLock { state in
                if !state.tooLarge { state.failure = error.localizedDescription }
            }
        }
        done.signal()
    }
}
