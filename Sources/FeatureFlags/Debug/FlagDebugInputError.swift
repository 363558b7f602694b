/// Why the debug menu could not use what was typed into a value field, or could not set it.
///
/// The message quotes the flag's key and what was typed (`<REDACTED>` for sensitive flags) and
/// says what the field takes.
public struct FlagDebugInputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The flag's key.
    public let key: String
    /// One or two sentences for the field's validation message.
    public let message: String

    /// The error for the flag `key`, with `message` already redacted where the flag is sensitive.
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
