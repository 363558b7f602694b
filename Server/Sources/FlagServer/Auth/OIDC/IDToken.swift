import Crypto
import FlagEvaluation
import Foundation

/// A compact-serialized JWS ID token, split and decoded but not yet trusted.
struct IDToken: Sendable {
    var algorithm: String
    var keyID: String?
    /// `header.payload`, the bytes the signature covers.
    var signedPart: Data
    var signature: Data
    var claims: JSONValue

    /// The largest ID token accepted (64 KiB).
    static let maximumBytes = 64 * 1024

    /// The algorithms accepted; anything else (`none`, `HS256`, …) is refused before any key is read.
    static let algorithms: Set = ["RS256", "ES256"]

    init(compact token: String) throws(OIDCFailure) {
        guard token.utf8.count <= Self.maximumBytes else { throw .token("longer than \(Self.maximumBytes) bytes") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .token("not a compact JWS (\(parts.count) parts)") }
        guard let headerBytes = Data(base64URL: parts[0]), let header = try? JSONValue(parsing: headerBytes),
            case .object = header
        else { throw .token("the header is not base64url JSON") }
        guard case .string(let algorithm)? = header["alg"] else { throw .token("the header has no alg") }
        guard Self.algorithms.contains(algorithm) else { throw .token("algorithm \"\(algorithm.prefix(16))\" is not RS256 or ES256") }
        if header["crit"] != nil { throw .token("the header has critical extensions") }
        guard let payload = Data(base64URL: parts[1]), let claims = try? JSONValue(parsing: payload), case .object = claims else {
            throw .token("the payload is not base64url JSON")
        }
        guard let signature = Data(base64URL: parts[2]), !signature.isEmpty else { throw .token("the signature is missing") }
        self.algorithm = algorithm
        if case .string(let kid)? = header["kid"] { keyID = kid }
        signedPart = Data((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
        self.claims = claims
    }

    /// Whether one of `keys` (those of the token's `kid`, or all when it names none) signed it.
    func isSigned(byOneOf keys: [JSONWebKey]) -> Bool {
        keys.contains { key in
            (keyID == nil || key.id == keyID) && key.fits(algorithm: algorithm)
                && key.isValidSignature(signature, of: signedPart, algorithm: algorithm)
        }
    }

    /// Checks the claims of OpenID Connect Core 3.1.3.7: `iss`, `aud` (and `azp` with several
    /// audiences), `exp` and `iat` within `skew`, and `nonce` (constant-time).
    func checkClaims(issuer: String, clientID: String, nonce: String, now: Date, skew: TimeInterval) throws(OIDCFailure) {
        guard case .string(let iss)? = claims["iss"], iss == issuer else { throw .token("iss is not the configured issuer") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let audience)?: audiences = [audience]
        case .array(let values)?: audiences = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: throw .token("aud is missing")
        }
        guard audiences.contains(clientID) else { throw .token("aud does not name this client") }
        let azp: String? = if case .string(let text)? = claims["azp"] { text } else { nil }
        if audiences.count > 1, azp == nil { throw .token("several audiences and no azp") }
        if let azp, azp != clientID { throw .token("azp is another client") }
        guard let expiry = Self.seconds(claims["exp"]) else { throw .token("exp is missing") }
        guard now.timeIntervalSince1970 < expiry + skew else { throw .token("expired (exp is past, beyond \(Int(skew)) s of skew)") }
        guard let issuedAt = Self.seconds(claims["iat"]) else { throw .token("iat is missing") }
        guard issuedAt <= now.timeIntervalSince1970 + skew else { throw .token("iat is in the future (beyond \(Int(skew)) s of skew)") }
        guard case .string(let presented)? = claims["nonce"] else { throw .token("nonce is missing") }
        guard TokenIssuer.constantTimeEqual(Array(presented.utf8), Array(nonce.utf8)) else {
            throw .token("nonce is not the one of this sign-in")
        }
    }

    static func seconds(_ value: JSONValue?) -> TimeInterval? {
        switch value {
        case .int(let seconds)?: TimeInterval(seconds)
        case .double(let seconds)? where seconds.isFinite: seconds
        default: nil
        }
    }

    /// The strings of claim `name`: a string, or the strings of an array.
    func strings(_ name: String) -> [String] {
        switch claims[name] {
        case .string(let text)?: [text]
        case .array(let values)?: values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        default: []
        }
    }
}
