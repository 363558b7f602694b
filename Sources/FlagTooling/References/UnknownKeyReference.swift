import FeatureFlags

/// A key used in code that the manifest does not declare.
public struct UnknownKeyReference: Sendable, Hashable {
    /// The key used.
    public let key: String
    /// The file's path, as given to the finder.
    public let file: String
    /// The 1-based line.
    public let line: Int
    /// The 1-based column.
    public let column: Int
    /// Where the key is used: `forKey:`, `TypedFlag`, `enum case`.
    public let context: String

    /// The reference as a JSON object: `key`, `file`, `line`, `column` and `context`.
    public var json: FlagValue {
        [
            "key": .string(key), "file": .string(file), "line": .int(line), "column": .int(column),
            "context": .string(context),
        ]
    }
}
