/// Text that is not JSON (or JSON this package refuses, such as a duplicate key), with the place
/// where parsing stopped.
///
/// ```
/// invalid JSON at "/flags" (line 4, column 5): duplicate key "page_size" in an object; each key may appear only once
/// ```
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in one sentence.
    public var reason: String
    /// 1-based line of the offending byte.
    public var line: Int
    /// 1-based column (in bytes) of the offending byte.
    public var column: Int
    /// A JSON Pointer (RFC 6901) to the value being read when parsing stopped, such as
    /// `/flags/page_size`; empty at the top level.
    public var path: String

    /// An error with `reason` at `line` and `column` (1-based; the column in bytes), inside `path` when given.
    public init(reason: String, line: Int, column: Int, path: String = "") {
        self.reason = reason
        self.line = line
        self.column = column
        self.path = path
    }

    /// The reason, preceded by the ``path`` when there is one: `at "/flags/delay": number 1e400 …`.
    public var reasonWithPath: String {
        path.isEmpty ? reason : "at \(Self.quoted(path)): \(reason)"
    }

    /// `invalid JSON at line L, column C: reason`, with the JSON Pointer when there is one.
    public var description: String {
        path.isEmpty
            ? "invalid JSON at line \(line), column \(column): \(reason)"
            : "invalid JSON at \(Self.quoted(path)) (line \(line), column \(column)): \(reason)"
    }

    /// This error, for a value found under `key` of an enclosing object.
    @inlinable
    public func inside(key: String) -> JSONSyntaxError {
        var copy = self
        copy.path = "/" + key.replacing("~", with: "~0").replacing("/", with: "~1") + path
        return copy
    }

    /// This error, for a value found at `index` of an enclosing array.
    @inlinable
    public func inside(index: Int) -> JSONSyntaxError {
        var copy = self
        copy.path = "/\(index)" + path
        return copy
    }

    private static func quoted(_ path: String) -> String {
        var output = ""
        JSONStringWriter.write(path, to: &output)
        return output
    }
}
