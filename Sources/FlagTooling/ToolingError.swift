/// A failure of a tooling command, with the exit status the `flags` command uses for it.
///
/// - ``Kind/invalidInput``: the manifest, an override file or an argument cannot be used
///   (exit status 2, as for usage errors).
/// - ``Kind/failed``: the command ran and found a problem: an unknown flag, a wrong type, lint
///   errors (exit status 1).
public struct ToolingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case invalidInput
        case failed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The process exit status for this failure.
    public var exitStatus: Int32 { kind == .invalidInput ? 2 : 1 }

    public var description: String { message }
}
