/// JSON text that could not be parsed, with the place where parsing stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in one sentence.
    public var reason: String
    /// 1-based line of the offending byte.
    public var line: Int
    /// 1-based column (in bytes) of the offending byte.
    public var column: Int

    /// An error with `reason` at `line` and `column` (1-based; the column in bytes).
    public init(reason: String, line: Int, column: Int) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    /// `invalid JSON at line L, column C: reason`.
    public var description: String {
        "invalid JSON at line \(line), column \(column): \(reason)"
    }
}
