import FeatureFlags

/// A place in Swift source that names a flag.
public struct FlagReference: Sendable, Hashable {
    /// How the source names the flag.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `.chatViewRedesign` or `AppFlag.chatViewRedesign`.
        case enumCase = "enum case"
        /// `"chat_view_redesign"`.
        case keyString = "key string"
        /// `AppFlagValues.chatPageSize`: a typed value's constant.
        case typedConstant = "typed constant"
        /// `flags.chatPageSize`: a generated accessor.
        case accessor = "generated accessor"
    }

    /// The flag's key.
    public let key: String
    /// The file's path, as given to the finder.
    public let file: String
    /// 1-based line and column.
    public let line: Int
    /// The 1-based column.
    public let column: Int
    /// How the source names the flag.
    public let kind: Kind
    /// The referring source text, such as `AppFlag.chatViewRedesign`.
    public let text: String

    /// The reference as a JSON object.
    public var json: FlagValue {
        [
            "key": .string(key), "file": .string(file), "line": .int(line), "column": .int(column),
            "kind": .string(kind.rawValue), "text": .string(text),
        ]
    }
}
