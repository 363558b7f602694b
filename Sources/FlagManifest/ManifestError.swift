/// A manifest that cannot be used: unreadable, not JSON, or not a flag manifest.
///
/// The message names the file, the line when known, and the field, and says how to fix it:
///
/// ```text
/// flags.json:12: flags.chat_view_redesign.metadata.phase: expected a number, found a string.
/// ```
public struct ManifestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The manifest's path (or a name such as `<stdin>`).
    public let file: String
    /// The 1-based line, when known.
    public let line: Int?
    /// The dotted path of the field, such as `flags.chat_view_redesign.metadata.phase`; empty for
    /// problems with the whole file.
    public let field: String
    /// What is wrong, as a sentence.
    public let message: String

    /// An error in `file` (at `line`, in `field`, when known) saying `message`.
    public init(file: String, line: Int? = nil, field: String = "", message: String) {
        self.file = file
        self.line = line
        self.field = field
        self.message = message
    }

    /// `file:line: field: message`, leaving out what is not known.
    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        text += ": "
        if !field.isEmpty { text += "\(field): " }
        return text + message
    }
}
