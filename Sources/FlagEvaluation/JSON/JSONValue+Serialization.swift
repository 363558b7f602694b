internal import JSONSyntax

extension JSONValue {
    /// Parses JSON text.
    ///
    /// - Throws: ``JSONParseError`` naming the line and column where the text stopped being JSON.
    public init(parsing text: String) throws(JSONParseError) {
        self = try Self.parse(text.utf8)
    }

    /// Parses JSON from UTF-8 bytes (for example `Data`).
    ///
    /// - Throws: ``JSONParseError`` naming the line and column where the bytes stopped being JSON.
    public init<Bytes: Collection<UInt8>>(parsing bytes: Bytes) throws(JSONParseError) {
        self = try Self.parse(bytes)
    }

    private static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(JSONParseError) -> JSONValue {
        do {
            return try JSONParser<JSONValueTreeBuilder>.parse(bytes)
        } catch {
            throw JSONParseError(reason: error.reasonWithPath, line: error.line, column: error.column)
        }
    }

    /// Deterministic JSON text: object keys sorted by their UTF-8 bytes, no insignificant
    /// whitespace unless `prettyPrinted`.
    ///
    /// Integers print exactly; floating-point numbers print in their shortest round-trip form and
    /// keep a fraction (`1.0`), so parsing the output gives back the same cases. Non-finite numbers,
    /// which JSON cannot express, print as `null`.
    public func serialized(prettyPrinted: Bool = false) -> String {
        var output = ""
        write(to: &output, indent: prettyPrinted ? 0 : nil)
        return output
    }

    private func write(to output: inout String, indent: Int?) {
        switch self {
        case .null:
            output += "null"
        case .bool(let value):
            output += value ? "true" : "false"
        case .int(let value):
            output += String(value)
        case .double(let value):
            output += Self.jsonNumberText(value)
        case .string(let value):
            Self.writeString(value, to: &output)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                Self.newline(&output, indent.map { $0 + 1 })
                element.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output += "]"
        case .object(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (offset, key) in keys.enumerated() {
                if offset > 0 { output += "," }
                Self.newline(&output, indent.map { $0 + 1 })
                Self.writeString(key, to: &output)
                output += indent == nil ? ":" : ": "
                members[key]!.write(to: &output, indent: indent.map { $0 + 1 })
            }
            Self.newline(&output, indent)
            output += "}"
        }
    }

    private static func newline(_ output: inout String, _ indent: Int?) {
        guard let indent else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    static func jsonNumberText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int(value)) + ".0"
        }
        return value.description
    }

    private static func writeString(_ value: String, to output: inout String) {
        JSONStringWriter.write(value, to: &output)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact, key-sorted JSON text of the value.
    public var description: String { serialized() }
}

/// Makes ``JSONValue``s for the package's JSON parser.
enum JSONValueTreeBuilder: JSONTreeBuilder {
    static func null() -> JSONValue { .null }
    static func bool(_ value: Bool) -> JSONValue { .bool(value) }
    static func int(_ value: Int) -> JSONValue { .int(value) }
    static func floatingPoint(_ value: Double) -> JSONValue { .double(value) }
    static func string(_ value: String) -> JSONValue { .string(value) }
    static func array(_ elements: [JSONValue]) -> JSONValue { .array(elements) }
    static func object(_ members: [String: JSONValue]) -> JSONValue { .object(members) }
}

extension JSONTape where Value == JSONValue {
    /// The value at `node`, built as a `JSONValue` tree.
    func value(at node: Int) -> JSONValue {
        let info = nodes[node]
        switch info.kind {
        case .scalar:
            return scalar(at: node)
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(Int(info.count))
            for child in children(of: node) {
                elements.append(value(at: child))
            }
            return .array(elements)
        case .object:
            var members = [String: JSONValue](minimumCapacity: Int(info.count))
            for child in children(of: node) {
                members[key(of: child)] = value(at: child)
            }
            return .object(members)
        }
    }

    /// The type of the value at `node`, as ``JSONValue/typeName`` names it.
    func typeName(at node: Int) -> String {
        switch nodes[node].kind {
        case .scalar: scalar(at: node).typeName
        case .array: "array"
        case .object: "object"
        }
    }
}
