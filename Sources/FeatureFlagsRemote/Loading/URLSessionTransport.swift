import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: `URLSession`, from FoundationNetworking on Linux.
///
/// Its session has no URL cache, so `ETag` revalidation stays with the loader (a 304 reaches
/// it as a 304, not as a replayed 200).
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// A transport over a session without a URL cache or cookies.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        self.session = URLSession(configuration: configuration)
    }

    /// A transport over `session`. Give it a configuration whose `urlCache` is `nil`.
    public init(session: URLSession) {
        self.session = session
    }

    public func send(_ request: RemoteHTTPRequest) async throws -> RemoteHTTPResponse {
        var urlRequest = URLRequest(
            url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method.rawValue
        for (name, value) in request.headerFields {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return RemoteHTTPResponse(statusCode: http.statusCode, headerFields: headers, body: data)
    }
}
