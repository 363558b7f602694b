/// A failure of a tooling command, with the exit status the `flags` command uses for it.
///
/// - ``Kind/invalidInput``: the manifest, an override file or an argument cannot be used
///   (exit status 2, as for usage errors).
/// - ``Kind/failed``: the command ran and found a problem: an unknown flag, a wrong type, lint
///   errors (exit status 1).
/// - ``Kind/serverFailure``: a flag server could not be reached, refused the token or the
///   request, or answered something unusable (exit status 3).
public struct ToolingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is, which decides the exit status (see the type's documentation).
    public enum Kind: Sendable, Hashable {
        /// The input cannot be used (exit status 2).
        case invalidInput
        /// The command ran and found a problem (exit status 1).
        case failed
        /// A flag server could not be reached or answered something unusable (exit status 3).
        case serverFailure
    }

    /// What kind of failure it is.
    public let kind: Kind
    /// What happened and how to fix it, in a sentence or two.
    public let message: String

    /// A failure of `kind` saying `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The process exit status for this failure.
    public var exitStatus: Int32 {
        switch kind {
        case .invalidInput: 2
        case .failed: 1
        case .serverFailure: 3
        }
    }

    /// The message.
    public var description: String { message }
}
