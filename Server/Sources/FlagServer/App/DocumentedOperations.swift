import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// The operations of the served OpenAPI document by path template and method, so that the server
/// answers what the document says about requests no route handler sees: a method the document
/// does not declare for a path it does (405 with `Allow`), query parameters outside their
/// schemas (400 naming the parameter), and, on list operations (a `GET` answering an array),
/// path parameters outside their schemas (422 naming the parameter, where a list would otherwise
/// answer `200 []` for a key no environment or flag can have), before any handler runs.
struct DocumentedOperations: Sendable {
    /// A documented query parameter.
    struct QueryParameter: Sendable {
        var name: String
        var required: Bool
        var schema: JSONValue
    }

    struct PathTemplate: Sendable {
        /// The segments; `nil` stands for a `{parameter}`.
        var segments: [String?]
        /// The name of the `{parameter}` at each segment; `nil` for a literal segment.
        var parameterNames: [String?]
        /// Query parameters by upper-case method name.
        var operations: [String: [QueryParameter]]
        /// The path parameters checked before the handler runs, by upper-case method name: those
        /// of list operations (see ``DocumentedOperations/isList(_:in:)``).
        var checkedPathParameters: [String: [QueryParameter]] = [:]

        func matches(_ path: some Collection<Substring>) -> Bool {
            path.count == segments.count && zip(segments, path).allSatisfy { template, segment in
                template.map { $0 == segment } ?? !segment.isEmpty
            }
        }
    }

    let templates: [PathTemplate]
    let validator: RequestSchemaValidator

    /// The operations of the bundled `openapi.json`, or `nil` if the bundle lacks it.
    static let document: DocumentedOperations? = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8),
            let document = try? JSONValue(parsing: text)
        else { return nil }
        return DocumentedOperations(document: document)
    }()

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    init(document: JSONValue) {
        validator = RequestSchemaValidator(document: document)
        var templates: [PathTemplate] = []
        for (path, item) in document["paths"]?.objectValue ?? [:] {
            let pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
            let segments = pieces.map { segment in segment.hasPrefix("{") && segment.hasSuffix("}") ? nil : String(segment) }
            let parameterNames = pieces.map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? String(segment.dropFirst().dropLast()) : nil
            }
            let shared = item["parameters"]?.arrayValue ?? []
            var operations: [String: [QueryParameter]] = [:]
            var checkedPathParameters: [String: [QueryParameter]] = [:]
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                func parameters(in place: String) -> [QueryParameter] {
                    (shared + (operation["parameters"]?.arrayValue ?? [])).compactMap { parameter in
                        guard parameter["in"]?.stringValue == place, let name = parameter["name"]?.stringValue else { return nil }
                        return QueryParameter(
                            name: name, required: parameter["required"] == true, schema: parameter["schema"] ?? .object([:]))
                    }
                }
                operations[method.uppercased()] = parameters(in: "query")
                if method == "get", Self.isList(operation, in: document) {
                    checkedPathParameters[method.uppercased()] = parameters(in: "path")
                }
            }
            templates.append(PathTemplate(
                segments: segments, parameterNames: parameterNames, operations: operations, checkedPathParameters: checkedPathParameters))
        }
        // At each segment a literal before a parameter, so that a `{key}` never shadows a literal.
        self.templates = templates.sorted { first, second in
            first.segments.map { $0 == nil }.lexicographicallyPrecedes(second.segments.map { $0 == nil }) { !$0 && $1 }
        }
    }

    /// The documented operations of `path` by method, or `nil` when the document has no such path.
    func operations(of path: String) -> [String: [QueryParameter]]? {
        template(of: path)?.operations
    }

    /// The documented template `path` belongs to, or `nil` when the document has no such path.
    func template(of path: String) -> PathTemplate? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        return templates.first { $0.matches(segments) }
    }

    /// Whether `operation` lists things: its 200 answer is a JSON array (directly or through a
    /// `$ref` to a component schema).
    static func isList(_ operation: JSONValue, in document: JSONValue) -> Bool {
        func resolved(_ value: JSONValue?) -> JSONValue? {
            var value = value
            // References point into `components`, `#/components/<kind>/<name>`; a few levels at most.
            for _ in 0..<4 {
                guard let reference = value?["$ref"]?.stringValue else { break }
                let parts = reference.split(separator: "/").map(String.init)
                guard parts.count == 4, parts[0] == "#", parts[1] == "components" else { return nil }
                value = document["components"]?[parts[2]]?[parts[3]]
            }
            return value
        }
        let ok = resolved(operation["responses"]?["200"])
        return resolved(ok?["content"]?["application/json"]?["schema"])?["type"] == "array"
    }

    /// The problems of the path parameters of a `method` request to `path`, checked where the
    /// operation is a list (``PathTemplate/checkedPathParameters``): each segment, percent-decoded,
    /// against its parameter's schema.
    func pathProblems(_ path: String, method: String) -> [ValidationError] {
        guard let template = template(of: path), let parameters = template.checkedPathParameters[method], !parameters.isEmpty else {
            return []
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var problems: [ValidationError] = []
        for (name, segment) in zip(template.parameterNames, segments) {
            guard let name, let parameter = parameters.first(where: { $0.name == name }) else { continue }
            let text = String(segment).removingPercentEncoding ?? String(segment)
            problems += validator.problems(in: .string(text), against: parameter.schema, field: name)
        }
        return problems
    }

    /// The problems of the query of a request to an operation with `parameters`: each value is
    /// read as its schema's type (`limit=abc` is not an integer) and checked against the schema.
    func queryProblems(_ query: Parameters, parameters: [QueryParameter]) -> [ValidationError] {
        var problems: [ValidationError] = []
        for parameter in parameters {
            let values = query.getAll(parameter.name)
            guard let text = values.first else {
                if parameter.required {
                    problems.append(ValidationError(key: nil, field: parameter.name, problem: "missing (required)"))
                }
                continue
            }
            if values.count > 1 {
                problems.append(ValidationError(key: nil, field: parameter.name, problem: "given \(values.count) times; give it once"))
                continue
            }
            let value: JSONValue
            switch parameter.schema["type"]?.stringValue {
            case "integer":
                guard let number = Int(text) else {
                    problems.append(ValidationError(key: nil, field: parameter.name, problem: "expected an integer, got \"\(text)\""))
                    continue
                }
                value = .int(number)
            case "boolean":
                guard text == "true" || text == "false" else {
                    problems.append(ValidationError(key: nil, field: parameter.name, problem: "expected true or false, got \"\(text)\""))
                    continue
                }
                value = .bool(text == "true")
            default:
                value = .string(text)
            }
            problems += validator.problems(in: value, against: parameter.schema, field: parameter.name)
        }
        return problems
    }
}

/// Answers 405 with `Allow` for a method the OpenAPI document does not declare on a path it
/// declares, 400 for query parameters outside their documented schemas, and 422 for path
/// parameters of a list operation outside theirs (see ``DocumentedOperations``). Paths the
/// document does not describe (the console) pass through.
struct DocumentedOperationsMiddleware<Context: RequestContext>: RouterMiddleware {
    let operations: DocumentedOperations

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let documented = operations.operations(of: request.uri.path) else { return try await next(request, context) }
        guard let parameters = documented[request.method.rawValue] else {
            let allowed = documented.keys.sorted().joined(separator: ", ")
            throw APIError(
                .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.method.rawValue) is not an operation of \(request.uri.path); it allows \(allowed)",
                headers: [.allow: allowed])
        }
        let problems = operations.queryProblems(request.uri.queryParameters, parameters: parameters)
        guard problems.isEmpty else {
            let message = problems.map { "\($0.field): \($0.problem)" }.joined(separator: "; ")
            if request.uri.path.hasPrefix("/ofrep/v1/evaluate/") {
                // OFREP's failure body, as the document declares for these operations.
                return OFREPRoutes.failure(.badRequest, key: nil, code: "GENERAL", details: "query: \(message)")
            }
            throw APIError(.badRequest, code: "bad_request", message: message, problems: problems)
        }
        let pathProblems = operations.pathProblems(request.uri.path, method: request.method.rawValue)
        guard pathProblems.isEmpty else {
            throw APIError(
                .unprocessableContent, code: "invalid",
                message: pathProblems.map { "\($0.field) (in the path): \($0.problem)" }.joined(separator: "; "), problems: pathProblems)
        }
        return try await next(request, context)
    }
}
