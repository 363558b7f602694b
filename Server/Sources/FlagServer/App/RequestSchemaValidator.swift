import FlagEvaluation
import FlagServerModel
import Foundation

/// Checks request bodies against the schemas of the served OpenAPI document, so the server refuses
/// exactly what the document refuses: unknown fields where `additionalProperties` is false,
/// wrong types, missing required fields, values outside an `enum`, `pattern`, `minimum` or length.
///
/// It reads the JSON Schema keywords in ``supportedKeywords``; the document's tests check that its
/// request schemas use no other validation keyword, so nothing in the document goes unchecked.
///
/// ```swift
/// let problems = RequestSchemaValidator.document?.problems(in: body, schema: "PutSettings")
/// // [ValidationError(field: "enabled", problem: "expected boolean, got string")]
/// ```
struct RequestSchemaValidator: Sendable {
    let schemas: [String: JSONValue]

    /// The validator of the bundled `openapi.json`, or `nil` if the bundle lacks it.
    static let document: RequestSchemaValidator? = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"),
            let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8),
            let document = try? JSONValue(parsing: text)
        else { return nil }
        return RequestSchemaValidator(document: document)
    }()

    /// The keywords checked; annotations (`description`, `example`, …) carry no rule.
    static let supportedKeywords: Set<String> = [
        "$ref", "type", "enum", "properties", "required", "additionalProperties", "minProperties", "maxProperties",
        "items", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "minimum", "maximum",
    ]
    /// Keywords that only annotate.
    static let annotationKeywords: Set<String> = ["description", "title", "example", "examples", "default", "format"]

    init(document: JSONValue) {
        schemas = document["components"]?["schemas"]?.objectValue ?? [:]
    }

    /// Every way `value` breaks the component schema `name`, each with the field path
    /// (`metadata.owner`, `variants`), in document order; empty when it fits.
    func problems(in value: JSONValue, schema name: String) -> [ValidationError] {
        var problems: [ValidationError] = []
        check(value, against: .object(["$ref": .string("#/components/schemas/\(name)")]), path: "", into: &problems)
        return problems
    }

    /// Every way `value` breaks `schema` (a schema of the document, or one with `$ref`s into it),
    /// reported under `field`.
    func problems(in value: JSONValue, against schema: JSONValue, field: String) -> [ValidationError] {
        var problems: [ValidationError] = []
        check(value, against: schema, path: field, into: &problems)
        return problems
    }

    private func check(_ value: JSONValue, against schema: JSONValue, path: String, into problems: inout [ValidationError]) {
        func report(_ problem: String) {
            problems.append(ValidationError(key: nil, field: path.isEmpty ? "(body)" : path, problem: problem))
        }
        if let reference = schema["$ref"]?.stringValue {
            let name = String(reference.split(separator: "/").last ?? "")
            guard let target = schemas[name] else { return report("the document has no schema \(reference)") }
            check(value, against: target, path: path, into: &problems)
            return
        }
        if let types = schema["type"] {
            let allowed = types.arrayValue?.compactMap(\.stringValue) ?? types.stringValue.map { [$0] } ?? []
            guard allowed.contains(where: { Self.value(value, hasType: $0) }) else {
                return report("expected \(allowed.joined(separator: " or ")), got \(value.typeName)")
            }
        }
        if let options = schema["enum"]?.arrayValue, !options.contains(value) {
            report("must be one of \(options.map { $0.serialized() }.joined(separator: ", ")), got \(value.serialized())")
        }
        switch value {
        case .object(let members):
            let properties = schema["properties"]?.objectValue ?? [:]
            for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where members[name] == nil {
                problems.append(ValidationError(key: nil, field: Self.join(path, name), problem: "missing (required)"))
            }
            if let minimum = schema["minProperties"]?.intValue, members.count < minimum {
                report("needs at least \(minimum) entr\(minimum == 1 ? "y" : "ies")")
            }
            if let maximum = schema["maxProperties"]?.intValue, members.count > maximum {
                report("allows at most \(maximum) entries, got \(members.count)")
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let property = properties[name] {
                    check(member, against: property, path: Self.join(path, name), into: &problems)
                } else if let additional = schema["additionalProperties"] {
                    if additional == .bool(false) {
                        let known = properties.keys.sorted().joined(separator: ", ")
                        problems.append(ValidationError(
                            key: nil, field: Self.join(path, name), problem: "unknown field; the fields are \(known)"))
                    } else if case .object = additional {
                        check(member, against: additional, path: Self.join(path, name), into: &problems)
                    }
                }
            }
        case .array(let items):
            if let maximum = schema["maxItems"]?.intValue, items.count > maximum {
                report("allows at most \(maximum) items, got \(items.count)")
            }
            // JSON equality (1 and 1.0 are the same item), in one pass over a set.
            if schema["uniqueItems"] == .bool(true) {
                var seen = Set<JSONValue>()
                if let repeated = items.first(where: { !seen.insert($0).inserted }) {
                    report("must not list an item twice (\(repeated) is repeated)")
                }
            }
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() { check(item, against: itemSchema, path: path + "[\(index)]", into: &problems) }
            }
        case .string(let text):
            // JSON Schema counts characters as Unicode code points, not grapheme clusters.
            let length = text.unicodeScalars.count
            if let minimum = schema["minLength"]?.intValue, length < minimum { report("must be at least \(minimum) characters long") }
            if let maximum = schema["maxLength"]?.intValue, length > maximum {
                report("must be at most \(maximum) characters long, got \(length)")
            }
            if let pattern = schema["pattern"]?.stringValue,
                text.range(of: pattern, options: .regularExpression) == nil
            {
                report("must match \(pattern), got \(value.serialized())")
            }
        case .int, .double:
            let number = value.doubleValue ?? 0
            if let minimum = schema["minimum"]?.doubleValue, number < minimum { report("must be at least \(schema["minimum"]!.serialized())") }
            if let maximum = schema["maximum"]?.doubleValue, number > maximum { report("must be at most \(schema["maximum"]!.serialized())") }
        default:
            break
        }
    }

    static func value(_ value: JSONValue, hasType type: String) -> Bool {
        switch (type, value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null),
            ("number", .int), ("number", .double), ("integer", .int):
            true
        case ("integer", .double(let number)):
            number.rounded() == number && abs(number) < 9.0e15
        default:
            false
        }
    }

    static func join(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }
}
