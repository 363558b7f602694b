import Foundation
import HTTPTypes
import NIOCore

/// The proxies whose forwarding headers this server believes, as address ranges (CIDR), and how
/// the client of a request is found from them.
///
/// A request's client is the connection's peer, unless that peer is a trusted proxy: then the
/// addresses the proxies added (`Forwarded: for=…`, RFC 7239, or else `X-Forwarded-For`) are read
/// from the right, skipping trusted proxies, and the first untrusted one is the client. A header
/// from an untrusted peer is never read (anyone can send one), and neither are the entries left
/// of the first untrusted address (the client may have written them itself).
///
/// ```swift
/// let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.168.1.7, fd00::/8")
/// ```
public struct TrustedProxies: Sendable, Hashable, CustomStringConvertible {
    /// One address range: the first `prefixLength` bits of `bytes` (4 bytes for IPv4, 16 for IPv6).
    struct Range: Sendable, Hashable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (index, byte) in bytes.enumerated() where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if address[index] & mask != byte & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    let ranges: [Range]

    /// No proxy is trusted: the client is always the connection's peer (the default).
    public static let none = TrustedProxies(ranges: [])

    /// The longest list read from a header (64 entries): a longer chain is cut to its last 64.
    static let maximumChainLength = 64

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Reads a comma-separated list of addresses and ranges (`10.0.0.0/8`, `127.0.0.1`,
    /// `fd00::/8`); an empty text trusts no proxy.
    ///
    /// - Throws: ``ConfigurationError`` naming the entry that is not an address or range.
    public init(parsing text: String) throws(ConfigurationError) {
        var ranges: [Range] = []
        for entry in text.split(separator: ",") {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.addressBytes(String(parts[0])) else {
                throw ConfigurationError("trusted proxy \"\(trimmed.prefix(64))\" is not an IPv4 or IPv6 address or range (like 10.0.0.0/8)")
            }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let length = Int(parts[1]), (0...bytes.count * 8).contains(length) else {
                    throw ConfigurationError(
                        "trusted proxy \"\(trimmed.prefix(64))\" has a prefix length outside 0…\(bytes.count * 8)")
                }
                prefix = length
            }
            ranges.append(Range(bytes: bytes, prefixLength: prefix))
        }
        self.ranges = ranges
    }

    /// The trusted ranges as `address/prefix`, comma-separated, or `none`.
    public var description: String {
        ranges.isEmpty ? "none" : ranges.map { "\(Self.text($0.bytes))/\($0.prefixLength)" }.joined(separator: ", ")
    }

    /// Whether `address` (text) is in a trusted range.
    func trusts(_ address: String) -> Bool {
        guard !ranges.isEmpty, let bytes = Self.addressBytes(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client of a request that came from `peer` with `headers`: see the type's description.
    func client(peer: String, headers: HTTPFields) -> String {
        guard trusts(peer) else { return peer }
        let chain = Self.forwardedChain(headers)
        for address in chain.reversed() where !trusts(address) {
            return address
        }
        // Every hop is a trusted proxy (or none was named): the farthest one is the client.
        return chain.first ?? peer
    }

    /// The key a per-client limit counts a request under: its client (``client(peer:headers:)``
    /// of the connection's address) as ``limitKey(of:)``.
    func limitKey(of request: HTTPFields) -> String {
        Self.limitKey(of: client(peer: request[.flagServerClientAddress] ?? "unknown", headers: request))
    }

    /// The key a per-client limit counts under: the address, with an IPv6 address cut to its
    /// /64 network (one host usually holds a whole /64, and could otherwise take a new
    /// address, and a new allowance, for every request). Text that is not an address is kept
    /// (cut to 64 bytes).
    static func limitKey(of address: String) -> String {
        guard let bytes = addressBytes(address) else { return String(address.utf8.prefix(64)) ?? "unknown" }
        if bytes.count == 16 { return text(Array(bytes.prefix(8)) + Array(repeating: 0, count: 8)) + "/64" }
        return text(bytes)
    }

    /// The addresses the proxies named, nearest last: `Forwarded`'s `for=` values when the
    /// request has that header, else `X-Forwarded-For`'s entries.
    static func forwardedChain(_ headers: HTTPFields) -> [String] {
        let forwarded = headers[values: .forwarded]
        if !forwarded.isEmpty {
            var chain: [String] = []
            for element in forwarded.joined(separator: ",").split(separator: ",").suffix(maximumChainLength) {
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "for" else { continue }
                    chain.append(nodeAddress(parts[1].trimmingCharacters(in: .whitespaces)))
                }
            }
            return chain
        }
        return headers[values: .xForwardedFor].joined(separator: ",").split(separator: ",").suffix(maximumChainLength)
            .map { nodeAddress($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// A `Forwarded` node or `X-Forwarded-For` entry without quotes, brackets or port.
    static func nodeAddress(_ node: String) -> String {
        var text = Substring(node)
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = text.dropFirst().dropLast() }
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") { return String(text[text.index(after: text.startIndex)..<close]) }
        // IPv4 with a port (`192.0.2.1:8080`); an IPv6 address has several colons and no port here.
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return String(text)
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address, or `nil`.
    static func addressBytes(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= 64, let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        switch address {
        case .v4(let v4):
            return withUnsafeBytes(of: v4.address.sin_addr) { Array($0) }
        case .v6(let v6):
            return withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
        default:
            return nil
        }
    }

    /// The text of 4 or 16 address bytes (IPv6 as eight groups, without `::` shortening).
    static func text(_ bytes: [UInt8]) -> String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: bytes.count, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
}
