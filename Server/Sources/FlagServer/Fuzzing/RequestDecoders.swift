import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The server's request decoders, reached the way its routes reach them but without a running
/// server: for the fuzz targets in `Fuzz/` (SPI `Fuzzing`, not API).
///
/// Each function builds the request a route receives and runs the route's own decoding code
/// (``ServerLimits``, `JSONBody`, the OFREP context reader, the import reader), so the fuzz targets
/// follow whatever those decode and refuse.
@_spi(Fuzzing) public enum RequestDecoders {
    /// An admin API request body.
    public enum AdminBody: String, CaseIterable, Sendable {
        /// `POST /environments` `{"key", "reason"?}`.
        case createEnvironment
        /// `PUT /flags/{key}` `{"type", "variants", "metadata"?, "defaultVariant"?, "reason"?}`.
        case putFlag
        /// `PUT /environments/{env}/flags/{key}/settings` `{"enabled", "defaultVariant", "targeting"?, "reason"?}`.
        case putSettings
        /// `PUT /environments/{env}/segments/{key}` `{"rule", "reason"?}`.
        case putSegment
        /// `POST /environments/{env}/flags/{key}/revert` `{"revision", "reason"?}`.
        case revert
        /// `POST /tokens` `{"name", "environment", "role"}`.
        case createToken
    }

    /// A refused request: the HTTP status and the message (and problems) the server answers with.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// The HTTP status the server answers with.
        public var status: Int
        /// The answer's machine-readable code (`bad_request`, `invalid`, …).
        public var code: String
        /// The answer's message.
        public var message: String
        /// The answer's problems (for an invalid write), else empty.
        public var problems: [ValidationError]

        init(_ error: APIError) {
            status = error.status.code
            code = error.code
            message = error.message
            problems = error.problems
        }

        /// `status code: message`.
        public var description: String { "\(status) \(code): \(message)" }
    }

    /// Decodes `body` as the admin route for `kind` decodes it, and returns the changes that route
    /// hands to ``FlagAdmin/write(actor:reason:_:)`` (none for `revert`, which the server plans
    /// from history, and `createToken`, which writes no flag state).
    ///
    /// - Throws: ``Refusal`` with status 400 (the message names the field) or 413 (over the limit).
    public static func adminChanges(
        _ kind: AdminBody, body: [UInt8], environment: String, key: String, limits: ServerLimits = ServerLimits()
    ) async throws(Refusal) -> [StateChange] {
        let request = Request(
            head: HTTPRequest(method: .put, scheme: "http", authority: "localhost", path: "/admin/v1"),
            body: RequestBody(buffer: ByteBuffer(bytes: body)))
        do {
            // The bodies as `AdminRoutes` decodes them and the changes it builds from them.
            switch kind {
            case .createEnvironment:
                let body = try await JSONBody.decode(AdminRequests.CreateEnvironment.self, from: request, limit: limits.maximumAdminBytes)
                return [.createEnvironment(body.key)]
            case .putFlag:
                let body = try await JSONBody.decode(AdminRequests.PutFlag.self, from: request, limit: limits.maximumAdminBytes)
                return [body.change(key: key, current: nil)]
            case .putSettings:
                let body = try await JSONBody.decode(AdminRequests.PutSettings.self, from: request, limit: limits.maximumAdminBytes)
                let settings = body.settings
                return [.putSettings(environment: environment, flag: key, settings)]
            case .putSegment:
                let body = try await JSONBody.decode(AdminRequests.PutSegment.self, from: request, limit: limits.maximumAdminBytes)
                return [.putSegment(environment: environment, key: key, rule: body.rule)]
            case .revert:
                _ = try await JSONBody.decode(AdminRequests.Revert.self, from: request, limit: limits.maximumAdminBytes)
                return []
            case .createToken:
                _ = try await JSONBody.decode(AdminRequests.CreateToken.self, from: request, limit: limits.maximumAdminBytes)
                return []
            }
        } catch let error as APIError {
            throw Refusal(error)
        } catch {
            throw Refusal(APIError(.internalServerError, code: "internal", message: "\(error)"))
        }
    }

    /// The evaluation context of an OFREP request body, read as `POST /ofrep/v1/evaluate/flags`
    /// reads it, or the refusal (400 `PARSE_ERROR`/`INVALID_CONTEXT` with its `errorDetails`, 413).
    public static func evaluationContext(body: [UInt8], limits: ServerLimits = ServerLimits()) async -> Result<JSONValue, Refusal> {
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: "/ofrep/v1/evaluate/flags"),
            body: RequestBody(buffer: ByteBuffer(bytes: body)))
        let routes = OFREPRoutes(
            authenticator: RequestAuthenticator(publisher: publisher, rateLimiter: nil), limits: limits, now: { Date(timeIntervalSince1970: 0) })
        do {
            switch try await routes.context(of: request, key: nil) {
            case .context(let context):
                return .success(context)
            case .refused(let response):
                let collected = CollectedBytes()
                try await response.body.write(BodyCollector(collected: collected))
                let failure = (try? JSONValue(parsing: collected.bytes)) ?? .null
                return .failure(Refusal(APIError(
                    response.status, code: failure["errorCode"]?.stringValue ?? "", message: failure["errorDetails"]?.stringValue ?? "")))
            }
        } catch let error as APIError {
            return .failure(Refusal(error))
        } catch {
            return .failure(Refusal(APIError(.internalServerError, code: "internal", message: "\(error)")))
        }
    }

    /// The changes an import document makes to `environment`, read as
    /// `POST /environments/{env}/import?format=` reads it (before applying and validating them).
    ///
    /// - Throws: ``Refusal``: 400 for an unknown format or a document that does not read, 422 with
    ///   the problems of a flag entry that does not fit.
    public static func importChanges(document: [UInt8], format: String, environment: String) throws(Refusal) -> [StateChange] {
        guard let format = FlagdImporter.Format(rawValue: format) else {
            throw Refusal(APIError(.badRequest, code: "bad_request", message: "format: must be flagd or manifest, got \"\(format)\""))
        }
        do {
            return try FlagdImporter.changes(
                importing: String(buffer: ByteBuffer(bytes: document)), format: format, into: environment)
        } catch {
            throw Refusal(APIError(error))
        }
    }

    /// The export of `environment` as `GET /environments/{env}/export` writes it.
    public static func export(_ state: ServerState, environment: String) -> [UInt8]? {
        state.flagdDocument(environment: environment).map { Array($0.serialized(prettyPrinted: true).utf8) }
    }

    private static let publisher = StatePublisher(ttlSeconds: 60)

    private final class CollectedBytes {
        var bytes: [UInt8] = []
    }

    /// Collects a response body.
    private struct BodyCollector: ResponseBodyWriter {
        let collected: CollectedBytes
        mutating func write(_ buffer: ByteBuffer) async throws { collected.bytes += buffer.readableBytesView }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
