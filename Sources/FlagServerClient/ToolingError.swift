/// A failure of a tooling command, with the exit status the `flags` command uses for it.
///
/// - ``Kind/invalidInput``: the manifest, an override file or an argument cannot be used
///   (exit status 2, as for usage errors).
/// - ``Kind/failed``: the command ran and found a problem: an unknown flag, a wrong type, lint
///   errors (exit status 1).
/// - ``Kind/serverFailure``: a flag server could not be reached, refused the token or the
///   request, or answered something unusable (exit status 3).
public struct ToolingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        case invalidInput
        case failed
        case serverFailure
    }

    public let kind: Kind
    public let message: String

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

    public var description: String { message }
}
