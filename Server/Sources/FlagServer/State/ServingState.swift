import Atomics
import FlagServerModel

/// What the read path serves: every environment compiled, and the tokens, as one immutable object.
public final class ServingState: Sendable, AtomicReference {
    /// Every environment compiled, by key.
    public let environments: [String: CompiledEnvironment]
    /// Tokens by id (revoked ones included, so a revoked token is told so).
    public let tokens: [String: TokenRecord]

    /// A state serving `environments` and checking `tokens`.
    public init(environments: [String: CompiledEnvironment], tokens: [String: TokenRecord]) {
        self.environments = environments
        self.tokens = tokens
    }
}
