/// Text that is not JSON, with the place where parsing stopped.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, in one sentence.
    public var reason: String
    /// 1-based line of the offending byte.
    public var line: Int
    /// 1-based column (in bytes) of the offending byte.
    public var column: Int

    public init(reason: String, line: Int, column: Int) {
        self.reason = reason
        self.line = line
        self.column = column
    }

    public var description: String {
        "invalid JSON at line \(line), column \(column): \(reason)"
    }
}
