import FeatureFlags
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The thin shell between `URLSession`'s delegate callbacks and ``URLSessionTransport``: hands
/// the response head to the waiting `send`, streams body chunks, and asks ``RedirectPolicy``
/// about every redirect.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var head: CheckedContinuation<RemoteHTTPStreamingResponse, any Error>?
        var body: AsyncThrowingStream<Data, any Error>.Continuation?
        let origin: URL
        var redirects = 0
        var refusal: String?
    }

    private let redirectPolicy: RedirectPolicy
    private let pending = Locked([Int: Pending]())

    init(redirectPolicy: RedirectPolicy) {
        self.redirectPolicy = redirectPolicy
    }

    /// Remembers the continuation `send` waits on, before the task starts.
    func register(
        _ task: URLSessionTask, origin: URL, head: CheckedContinuation<RemoteHTTPStreamingResponse, any Error>
    ) {
        pending.withLock { $0[task.taskIdentifier] = Pending(head: head, origin: origin) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let follow = pending.withLock { pending -> Bool in
            guard var entry = pending[task.taskIdentifier], let target = request.url else { return false }
            switch redirectPolicy.decision(from: entry.origin, to: target, redirectsSoFar: entry.redirects) {
            case .follow:
                entry.redirects += 1
                pending[task.taskIdentifier] = entry
                return true
            case .refuse(let reason):
                entry.refusal = reason
                pending[task.taskIdentifier] = entry
                return false
            }
        }
        completionHandler(follow ? request : nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let (body, continuation) = AsyncThrowingStream.makeStream(of: Data.self, throwing: (any Error).self)
        let (head, refusal) = pending.withLock { pending -> (CheckedContinuation<RemoteHTTPStreamingResponse, any Error>?, String?) in
            guard var entry = pending[dataTask.taskIdentifier] else { return (nil, nil) }
            let head = entry.head
            entry.head = nil
            if entry.refusal == nil { entry.body = continuation }
            pending[dataTask.taskIdentifier] = entry
            return (head, entry.refusal)
        }
        guard let head, let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        if let refusal {
            completionHandler(.cancel)
            head.resume(
                throwing: RemoteLoadError(.redirectRefused, statusCode: http.statusCode, message: refusal))
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        // When the reader stops (a body past the limit, a timeout), the download stops too.
        continuation.onTermination = { [weak dataTask] termination in
            if case .cancelled = termination { dataTask?.cancel() }
        }
        completionHandler(.allow)
        head.resume(returning: RemoteHTTPStreamingResponse(statusCode: http.statusCode, headerFields: headers, body: body))
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let body = pending.withLock { $0[dataTask.taskIdentifier]?.body }
        body?.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = entry.head {
            head.resume(throwing: error ?? URLError(.badServerResponse))
        }
        if let error {
            entry.body?.finish(throwing: error)
        } else {
            entry.body?.finish()
        }
    }
}
