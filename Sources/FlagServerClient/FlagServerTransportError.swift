/// Why a request got no usable answer.
public enum FlagServerTransportError: Error, Sendable, Hashable {
    /// The connection failed or timed out; the text says why.
    case unreachable(String)
    /// The answer's body is larger than the request's limit.
    case tooLarge(limit: Int)
}
