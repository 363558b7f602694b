import Foundation
internal import JSONSyntax

/// The override file's format, read and written in one place: a JSON object of flag keys to
/// values, as in `debug-feature-flags.json`, the `flags` command's `--overrides` file, and what
/// the debug menu shares and imports.
///
/// ```json
/// {"chat_view_redesign":true,"page_size":20}
/// ```
///
/// ```swift
/// let text = FlagOverridesDocument.text(of: engine.overrides)   // keys sorted, newline-terminated
/// let values = try FlagOverridesDocument.values(fromJSON: Data(text.utf8))
/// ```
public enum FlagOverridesDocument {
    /// The largest document read (1 MiB): an override file is a few hundred bytes.
    public static let maximumSize = 1 << 20

    /// The document for `values`: compact JSON with keys sorted, then a newline, which reads
    /// back as the same values.
    public static func text(of values: [String: FlagValue]) -> String {
        FlagValue.object(values).jsonString + "\n"
    }

    /// The values of a document. Empty or whitespace-only data is an empty document.
    ///
    /// - Throws: ``FlagOverridesDocumentError`` when the data is larger than ``maximumSize``,
    ///   is not JSON (naming the line and column), repeats a key, or is JSON but not an object.
    public static func values(fromJSON data: Data) throws(FlagOverridesDocumentError) -> [String: FlagValue] {
        guard data.count <= maximumSize else {
            throw FlagOverridesDocumentError(
                reason: "it is \(data.count) bytes long; an override document is at most \(maximumSize)")
        }
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        let value: FlagValue
        do {
            value = try FlagValue(jsonData: data)
        } catch let error as JSONSyntaxError {
            throw FlagOverridesDocumentError(
                reason: error.reasonWithPath, line: error.line, column: error.column, isSyntax: true)
        } catch {
            throw FlagOverridesDocumentError(reason: "\(error)", isSyntax: true)
        }
        guard case .object(let members) = value else {
            throw FlagOverridesDocumentError(
                reason: "it must be a JSON object of flag keys to values, found \(Self.typeName(of: value))")
        }
        return members
    }

    /// The values of a document given as text; see ``values(fromJSON:)``.
    public static func values(fromJSON text: String) throws(FlagOverridesDocumentError) -> [String: FlagValue] {
        try values(fromJSON: Data(text.utf8))
    }

    static func typeName(of value: FlagValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a Boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// An override document that cannot be read: what was wrong and, for JSON that does not
/// parse, where.
public struct FlagOverridesDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in one clause (no final period).
    public var reason: String
    /// The 1-based line where parsing stopped, for text that is not JSON.
    public var line: Int?
    /// The 1-based column (in bytes) where parsing stopped.
    public var column: Int?
    /// Whether the text is not JSON (rather than JSON of the wrong shape, or too large).
    public var isSyntax: Bool

    /// An error with `reason` and, for text that is not JSON, where parsing stopped.
    public init(reason: String, line: Int? = nil, column: Int? = nil, isSyntax: Bool = false) {
        self.reason = reason
        self.line = line
        self.column = column
        self.isSyntax = isSyntax
    }

    /// The reason, with the line and column when known.
    public var description: String {
        let place = line.map { line in column.map { " at line \(line), column \($0)" } ?? " at line \(line)" } ?? ""
        return isSyntax
            ? "The overrides are not valid JSON\(place): \(reason)."
            : "The overrides cannot be read: \(reason)."
    }
}
