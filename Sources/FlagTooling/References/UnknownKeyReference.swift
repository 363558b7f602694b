import FeatureFlags

/// A key used in code that the manifest does not declare.
public struct UnknownKeyReference: Sendable, Hashable {
    public let key: String
    public let file: String
    public let line: Int
    public let column: Int
    /// Where the key is used: `forKey:`, `TypedFlag`, `enum case`.
    public let context: String

    public var json: FlagValue {
        [
            "key": .string(key), "file": .string(file), "line": .int(line), "column": .int(column),
            "context": .string(context),
        ]
    }
}
