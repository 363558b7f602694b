import Crypto
import FlagEvaluation
import Foundation
import _CryptoExtras

/// A public signing key of an OpenID provider, read from its JWKS: RSA (RS256) or P-256 (ES256).
struct JSONWebKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        /// The raw x‖y coordinates (checked when read): swift-crypto's P-256 key type is not Sendable.
        case p256(Data)
    }

    /// `kid`, when the provider names its keys.
    var id: String?
    var material: Material

    /// The largest number of keys read from one JWKS.
    static let maximumKeys = 64

    /// The signing keys of a JWKS document; keys of other types, other curves, RSA keys under
    /// 2048 bits and encryption keys (`use: enc`) are left out.
    static func keys(inJWKS document: JSONValue) -> [JSONWebKey] {
        guard case .array(let entries)? = document["keys"] else { return [] }
        return entries.prefix(maximumKeys).compactMap(JSONWebKey.init(jwk:))
    }

    init?(jwk: JSONValue) {
        if case .string(let use)? = jwk["use"], use != "sig" { return nil }
        var id: String?
        if case .string(let kid)? = jwk["kid"] { id = kid }
        self.id = id
        switch jwk["kty"] {
        case .string("RSA")?:
            guard case .string(let n)? = jwk["n"], case .string(let e)? = jwk["e"],
                let modulus = Data(base64URL: n), let exponent = Data(base64URL: e),
                // _RSA refuses keys under 2048 bits; 16384 bounds the work of one check.
                modulus.count <= 2048,
                let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent)
            else { return nil }
            material = .rsa(key)
        case .string("EC")?:
            guard case .string("P-256")? = jwk["crv"], case .string(let x)? = jwk["x"], case .string(let y)? = jwk["y"],
                let xBytes = Data(base64URL: x), let yBytes = Data(base64URL: y), xBytes.count == 32, yBytes.count == 32,
                (try? P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)) != nil
            else { return nil }
            material = .p256(xBytes + yBytes)
        default:
            return nil
        }
    }

    /// Whether `signature` is this key's `algorithm` signature of `message`.
    func isValidSignature(_ signature: Data, of message: Data, algorithm: String) -> Bool {
        switch (material, algorithm) {
        case (.rsa(let key), "RS256"):
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
        case (.p256(let raw), "ES256"):
            guard signature.count == 64, let key = try? P256.Signing.PublicKey(rawRepresentation: raw), let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: SHA256.hash(data: message))
        default:
            return false
        }
    }

    /// Whether this key can check `algorithm` signatures.
    func fits(algorithm: String) -> Bool {
        switch (material, algorithm) {
        case (.rsa, "RS256"), (.p256, "ES256"): true
        default: false
        }
    }
}

extension Data {
    /// Decodes base64url without padding (JOSE's encoding); `nil` for anything else.
    init?(base64URL text: some StringProtocol) {
        guard text.utf8.allSatisfy({ byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45 || byte == 95
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    /// base64url without padding.
    var base64URLEncoded: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
