import FeatureFlags
import Foundation

/// One request to the backend and what it came to, with no state of its own: builds the
/// request (headers, `If-None-Match`, the OFREP context), sends it over the transport within the
/// request timeout, reads the body of a JSON success up to the size limit, and sorts the
/// response by status. The loader decides what each outcome does to its values and schedule.
struct RemoteFetcher: Sendable {
    /// What a request came to.
    enum Outcome: Sendable {
        /// `304`: the cached payload still holds.
        case notModified
        /// A JSON success, its body read whole (within the size limit).
        case payload(RemoteHTTPResponse)
        /// `401`/`403`: the server refused the app.
        case refused(RemoteLoadError)
        /// Anything else that brought no payload; `retryAt` is the server's `Retry-After`,
        /// already held to ``RemoteDurationLimits/retryAfter``.
        case failed(RemoteLoadError, retryAt: Date?)
    }

    let configuration: RemoteConfigurationLoader.Configuration
    let transport: any HTTPTransport
    let clock: any RefreshClock

    func fetch(etag: String?, event: EventConfigurationMetadata? = nil) async -> Outcome {
        let request = makeRequest(etag: etag, event: event)
        let response: RemoteHTTPResponse
        do {
            let transport = self.transport
            let limit = configuration.maximumPayloadSize
            response = try await Timeout.run(seconds: configuration.requestTimeout, clock: clock) {
                try await Self.receive(request, over: transport, maximumPayloadSize: limit)
            }
        } catch let error as RemoteLoadError {
            return .failed(error, retryAt: nil)
        } catch {
            return .failed(
                RemoteLoadError(
                    .connectionFailed, message: "The connection failed or broke off before the response was complete."),
                retryAt: nil)
        }

        let status = response.statusCode
        switch status {
        case 304:
            return .notModified
        case 200..<300:
            let contentType = response.value(forHeaderField: "Content-Type")?.lowercased() ?? ""
            guard contentType.contains("json") else {
                return .failed(
                    RemoteLoadError(
                        .unexpectedContentType, statusCode: status,
                        message: "The response is not JSON (Content-Type '\(contentType.prefix(64))')."),
                    retryAt: nil)
            }
            return .payload(response)
        case 401, 403:
            return .refused(
                RemoteLoadError(
                    .unauthorized, statusCode: status,
                    message: "The server refused the app (\(status)); refreshing stopped until it is set up again."))
        case 429:
            let retryAt = response.value(forHeaderField: "Retry-After").flatMap { RetryAfter.date(from: $0, now: clock.now) }
            return .failed(
                RemoteLoadError(.rateLimited, statusCode: 429, message: "The server is rate limiting the app (429)."),
                retryAt: retryAt)
        case 500..<600:
            return .failed(RemoteLoadError(.serverError, statusCode: status, message: "The server failed (\(status))."), retryAt: nil)
        default:
            return .failed(
                RemoteLoadError(.unexpectedStatus, statusCode: status, message: "The server answered \(status)."), retryAt: nil)
        }
    }

    /// Sends `request` and reads the body only of a JSON success, and only up to
    /// `maximumPayloadSize`: other bodies are never read.
    private static func receive(
        _ request: RemoteHTTPRequest, over transport: any HTTPTransport, maximumPayloadSize: Int
    ) async throws -> RemoteHTTPResponse {
        let head = try await transport.send(request)
        let isJSON = head.value(forHeaderField: "Content-Type")?.lowercased().contains("json") ?? false
        guard (200..<300).contains(head.statusCode), isJSON else {
            return RemoteHTTPResponse(statusCode: head.statusCode, headerFields: head.headerFields)
        }
        let body = try await BoundedBodyReader.read(head, limit: maximumPayloadSize)
        return RemoteHTTPResponse(statusCode: head.statusCode, headerFields: head.headerFields, body: body)
    }

    /// - Parameter event: The event that triggered the request (OFREP only: its metadata goes in
    ///   the query).
    func makeRequest(etag: String?, event: EventConfigurationMetadata? = nil) -> RemoteHTTPRequest {
        var headers = configuration.headerFields
        headers["Accept"] = "application/json"
        headers["User-Agent"] = configuration.environment.userAgent
        if let etag { headers["If-None-Match"] = etag }
        var body: Data?
        var url = configuration.environment.url(for: configuration.source.endpoint)
        if case .ofrep(let context) = configuration.source {
            headers["Content-Type"] = "application/json"
            body = Data(FlagValue.object(["context": context.jsonObject]).jsonString.utf8)
            if let event { url = event.applied(to: url) }
        }
        return RemoteHTTPRequest(
            method: configuration.source.endpoint.method,
            url: url,
            headerFields: headers, body: body, timeout: configuration.requestTimeout + 5)
    }

}
