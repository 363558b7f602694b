import FlagEvaluation
import FlagServerModel
import Foundation
import Hummingbird
import NIOCore

/// `POST /ofrep/v1/evaluate/flags/{key}` and `POST /ofrep/v1/evaluate/flags`.
struct OFREPRoutes: Sendable {
    let authenticator: RequestAuthenticator
    let limits: ServerLimits
    let now: @Sendable () -> Date
    /// Checks the database when a refetch names a newer revision than served (replicas only).
    var catchUp: ReplicaCatchUp? = nil

    func register(on router: Router<BasicRequestContext>) {
        router.post("/ofrep/v1/evaluate/flags/:key") { request, context in
            try await evaluateOne(request, key: context.parameters.get("key") ?? "")
        }
        router.post("/ofrep/v1/evaluate/flags") { request, _ in
            try await evaluateAll(request)
        }
    }

    /// An OFREP failure body: `{"key"?, "errorCode", "errorDetails"}`.
    static func failure(_ status: HTTPResponse.Status, key: String?, code: String, details: String) -> Response {
        var body: [String: JSONValue] = ["errorCode": .string(code), "errorDetails": .string(details)]
        if let key { body["key"] = .string(key) }
        return JSONBody.response(data: Data(JSONValue.object(body).serialized().utf8), status: status)
    }

    enum ContextOutcome {
        case context(JSONValue)
        case refused(Response)
    }

    /// The request's evaluation context, or the failure response to send.
    func context(of request: Request, key: String?) async throws -> ContextOutcome {
        Self.context(of: try await JSONBody.collect(request, limit: limits.maximumEvaluationBytes), key: key)
    }

    /// The evaluation context in a request body, or the failure response to send.
    static func context(of buffer: ByteBuffer, key: String?) -> ContextOutcome {
        let body: JSONValue
        do {
            body = buffer.readableBytes == 0 ? .object([:]) : try JSONValue(parsing: buffer.readableBytesView)
        } catch {
            return .refused(Self.failure(.badRequest, key: key, code: "PARSE_ERROR", details: "the body is not JSON: \(error)"))
        }
        guard case .object = body else {
            return .refused(Self.failure(.badRequest, key: key, code: "INVALID_CONTEXT", details: "the body must be a JSON object"))
        }
        let context = body["context"] ?? .object([:])
        guard case .object(let members) = context else {
            return .refused(Self.failure(
                .badRequest, key: key, code: "INVALID_CONTEXT", details: "\"context\" must be an object, got \(context.typeName)"))
        }
        if let targetingKey = members["targetingKey"], targetingKey.stringValue == nil {
            return .refused(Self.failure(
                .badRequest, key: key, code: "INVALID_CONTEXT",
                details: "\"context.targetingKey\" must be a string, got \(targetingKey.typeName)"))
        }
        return .context(context)
    }

    func evaluateOne(_ request: Request, key: String) async throws -> Response {
        let token = try authenticator.authorize(request, role: .client, environment: nil)
        let environment = try authenticator.environment(of: token)
        let context: JSONValue
        switch try await self.context(of: request, key: key) {
        case .context(let value): context = value
        case .refused(let response): return response
        }
        guard let (body, isError) = OFREPBodies.single(key, context: context, in: environment, now: now()) else {
            return Self.failure(.notFound, key: key, code: "FLAG_NOT_FOUND", details: "flag \"\(key)\" was not found")
        }
        return Response(
            status: isError ? .badRequest : .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
    }

    /// The bulk answer. A matching `If-None-Match` (weak comparison) is answered 304 from the
    /// ETag of the context's canonical form, before anything is evaluated.
    func evaluateAll(_ request: Request) async throws -> Response {
        let token = try authenticator.authorize(request, role: .client, environment: nil)
        var environment = try authenticator.environment(of: token)
        let buffer = try await JSONBody.collect(request, limit: limits.maximumEvaluationBytes)
        let seen = SeenConfiguration(query: request.uri.queryParameters)
        if let catchUp, !seen.isServed(by: environment) {
            let key = environment.key
            let publisher = authenticator.publisher
            let outcome = await catchUp.catchUp {
                publisher.current.environments[key].map(seen.isServed(by:)) ?? true
            }
            guard outcome == .current else {
                var response = Self.failure(
                    .serviceUnavailable, key: nil, code: "GENERAL",
                    details: "this replica has not loaded the configuration the event named (\(seen)) and cannot reach the database; retry")
                response.headers[.retryAfter] = "1"
                return response
            }
            environment = try authenticator.environment(of: token)
        }
        let context: JSONValue
        switch Self.context(of: buffer, key: nil) {
        case .context(let value): context = value
        case .refused(let response): return response
        }
        let etag = environment.bulkETag(context: context)
        if EntityTag.anyMatches(request.headers[.ifNoneMatch], etag) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .eTag: etag],
            body: ResponseBody(byteBuffer: OFREPBodies.bulk(context: context, in: environment, now: now())))
    }
}

extension FlagType {
    var evaluationType: EvaluationType {
        switch self {
        case .boolean: .boolean
        case .string: .string
        case .integer: .integer
        case .float: .float
        case .object: .object
        }
    }
}
