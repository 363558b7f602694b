import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reading request bodies with a size limit and writing JSON responses.
enum JSONBody {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()

    /// A JSON response of `value`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        // The server's own response types always encode.
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return response(data: data, status: status, headers: headers)
    }

    /// A response carrying already-serialized JSON.
    static func response(data: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The request body, refused with 413 above `limit` bytes.
    static func collect(_ request: Request, limit: Int) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError(
                .contentTooLarge, code: "too_large", message: "the request body is larger than the limit of \(limit) bytes")
        }
    }

    /// Decodes a request body after checking it against its schema in the OpenAPI document:
    /// 400 with every problem and its field path (`metadata.owner: expected string, got number`)
    /// for a body that is not JSON (or repeats a key) or that the document refuses; 413 above
    /// `limit` bytes.
    static func decode<T: DocumentedRequestBody>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        let buffer = try await collect(request, limit: limit)
        let body: JSONValue
        do {
            body = try JSONValue(parsing: buffer.readableBytesView)
        } catch {
            throw APIError(
                .badRequest, code: "bad_request", message: "the body is not JSON: \(error)",
                problems: [ValidationError(key: nil, field: "(body)", problem: "not JSON: \(error)")])
        }
        guard let validator = RequestSchemaValidator.document else {
            throw APIError(.internalServerError, code: "internal", message: "openapi.json is missing from the bundle")
        }
        let problems = validator.problems(in: body, schema: T.schemaName)
        guard problems.isEmpty else {
            throw APIError(
                .badRequest, code: "bad_request",
                message: problems.map { "\($0.field): \($0.problem)" }.joined(separator: "; "), problems: problems)
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw APIError(.badRequest, code: "bad_request", message: describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the body" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)): expected \(type), found null"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing"
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return "\(path(context.codingPath)): \(underlying ?? context.debugDescription)"
        @unknown default:
            return "the body does not fit the expected shape"
        }
    }
}
