import Crypto
import FlagServerModel
public import Foundation

/// Creates tokens and checks presented ones against their stored digests.
///
/// A token reads `ffs_<id>_<secret>`: the id finds the record, the 256-bit secret makes it
/// unguessable, and only the SHA-256 digest of the whole text is stored. Comparison of digests
/// takes the same time whatever bytes differ.
public enum TokenIssuer {
    /// The environment of a token that may act on every environment (the first admin token).
    public static let allEnvironments = "*"

    /// A new token and the record to store for it.
    public static func issue(
        name: String, environment: String, role: TokenRole, at time: Date
    ) -> (token: String, record: TokenRecord) {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<6).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let secret = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        let token = "ffs_\(id)_\(secret)"
        let record = TokenRecord(
            id: id, name: name, environment: environment, role: role, digest: digest(of: token), createdAt: time)
        return (token, record)
    }

    /// The hex SHA-256 digest of `token`.
    public static func digest(of token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).lowercaseHex
    }

    /// The id part of a well-formed token.
    static func id(of token: String) -> String? {
        let parts = token.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ffs", parts[1].count == 12, parts[2].count == 64 else { return nil }
        return String(parts[1])
    }

    /// The record `token` belongs to, if its digest matches; revoked records are returned too,
    /// so the caller can say the token was revoked.
    public static func verify(_ token: String, in tokens: [String: TokenRecord]) -> TokenRecord? {
        guard let id = id(of: token), let record = tokens[id] else { return nil }
        return constantTimeEqual(Array(digest(of: token).utf8), Array(record.digest.utf8)) ? record : nil
    }

    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
