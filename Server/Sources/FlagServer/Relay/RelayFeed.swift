import Crypto
public import FlagEvaluation
import FlagServerModel
import Foundation

/// What a relay takes from its upstream (a server or another relay) for one environment: the
/// flag definitions, the environment's state at its revision, when that revision was committed,
/// how `fractional` buckets, and the environment's delivery tokens (client and server roles) as
/// stored, that is only their SHA-256 digests, so the relay checks its clients' tokens as the
/// server does without ever holding a token's text.
///
/// Served at `GET /relay/v1/environment` (a server token of the environment) with an ETag that
/// changes with the revision and with the tokens.
public struct RelayFeed: Sendable, Hashable, Codable {
    /// The environment's state at its revision (its key names the environment).
    public var environment: EnvironmentState
    /// Every flag definition.
    public var flags: [String: FlagRecord]
    /// When the revision was committed (Unix seconds, the writer's clock), if known.
    public var lastModified: Double?
    /// The upstream's ``FractionalBucketing`` (its raw value).
    public var fractionalBucketing: String
    /// The environment's client and server tokens (digests only), revoked ones included.
    public var tokens: [TokenRecord]

    /// A feed of `environment` at its revision with the flags and tokens an upstream serves.
    public init(
        environment: EnvironmentState, flags: [String: FlagRecord], lastModified: Double?,
        fractionalBucketing: FractionalBucketing, tokens: [TokenRecord]
    ) {
        self.environment = environment
        self.flags = flags
        self.lastModified = lastModified
        self.fractionalBucketing = fractionalBucketing.rawValue
        self.tokens = tokens
    }

    /// The feed of `environment` in `state`, with the tokens a relay may accept from `all`.
    init?(
        state: ServerState, environment key: String, lastModified: Date?, bucketing: FractionalBucketing,
        tokens all: some Sequence<TokenRecord>
    ) {
        guard let environment = state.environments[key] else { return nil }
        self.init(
            environment: environment, flags: state.flags, lastModified: lastModified?.timeIntervalSince1970,
            fractionalBucketing: bucketing, tokens: Self.deliveryTokens(of: key, in: all))
    }

    /// The tokens a relay of `environment` accepts: that environment's, below the admin role.
    static func deliveryTokens(of environment: String, in tokens: some Sequence<TokenRecord>) -> [TokenRecord] {
        tokens.filter { $0.environment == environment && $0.role < .admin }.sorted { $0.id < $1.id }
    }

    /// The feed's ETag: the environment, its revision, and a digest of the tokens' ids and
    /// revocations (so a revoked token reaches the relays without a new revision).
    static func etag(environment: String, revision: Int, tokens: [TokenRecord]) -> String {
        var hasher = SHA256()
        for token in tokens {
            hasher.update(data: Data("\(token.id) \(token.role.rawValue) \(token.digest) \(token.revokedAt == nil ? "live" : "revoked")\n".utf8))
        }
        let digest = hasher.finalize().lowercaseHex.prefix(16)
        return "\"\(environment)-\(revision)-relay-\(digest)\""
    }

    var etag: String { Self.etag(environment: environment.key, revision: environment.revision, tokens: tokens) }

    /// The server state a relay compiles: the flags and this one environment.
    var serverState: ServerState { ServerState(flags: flags, environments: [environment.key: environment]) }

    /// Why a feed was refused (one sentence; no credentials).
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong with the feed.
        public var description: String
    }

    /// Reads a feed received from upstream, bounded in depth (the size is bounded where the body
    /// is read).
    static func decode(_ body: Data, maximumDepth: Int = 128) throws(Refusal) -> RelayFeed {
        if let depth = Self.nestingExceeding(maximumDepth, in: body) {
            throw Refusal(description: "the upstream's feed nests deeper than \(depth) levels")
        }
        do {
            return try JSONDecoder().decode(RelayFeed.self, from: body)
        } catch let error as DecodingError {
            throw Refusal(description: "the upstream's feed is not a relay feed: \(JSONBody.describe(error))")
        } catch {
            throw Refusal(description: "the upstream's feed is not a relay feed")
        }
    }

    /// `maximum` when `json` nests arrays and objects deeper than that (strings skipped), else `nil`.
    static func nestingExceeding(_ maximum: Int, in json: Data) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximum { return maximum }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }
}
