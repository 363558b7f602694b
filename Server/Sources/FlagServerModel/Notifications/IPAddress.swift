/// An IPv4 or IPv6 address read from any spelling a URL host or a resolver may give it, and the
/// range it belongs to, for judging where a webhook may be sent (`Server/Docs/Webhooks.md`).
///
/// IPv4 is read as the C library's `inet_aton` reads it (and so as `getaddrinfo`, which the HTTP
/// client would otherwise hand the host to): one to four parts, each decimal, octal (a leading
/// `0`) or hexadecimal (`0x`), the last part filling the bytes left (`127.1` is `127.0.0.1`,
/// `2130706433` too), plus one trailing dot as WHATWG URLs allow. IPv6 is read with `::`
/// compression, a dotted IPv4 tail and a zone (`fe80::1%eth0`, the zone ignored).
///
/// ```swift
/// IPAddress("0177.0.0.1")?.description     // "127.0.0.1"
/// IPAddress("::ffff:a9fe:a9fe")?.refusedRange // .linkLocal (169.254.169.254, mapped)
/// ```
package struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    enum Value: Sendable, Hashable {
        case v4(UInt32)
        case v6(UInt128)
    }

    let value: Value

    init(v4: UInt32) { value = .v4(v4) }
    init(v6: UInt128) { value = .v6(v6) }

    /// Reads `text` (without URL brackets) as an address; `nil` when it is none (a host name).
    package init?(_ text: some StringProtocol) {
        let text = Substring(text)
        guard !text.isEmpty, text.utf8.count <= 256 else { return nil }
        if text.contains(":") {
            guard let value = Self.parseV6(text) else { return nil }
            self.init(v6: value)
        } else {
            guard let value = Self.parseV4(text) else { return nil }
            self.init(v4: value)
        }
    }

    // MARK: Reading

    /// `inet_aton`'s forms: 1 to 4 parts, decimal, octal or hexadecimal; one trailing dot allowed.
    static func parseV4(_ text: Substring) -> UInt32? {
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        guard (1...4).contains(parts.count) else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = number(part) else { return nil }
            numbers.append(number)
        }
        // Every part but the last is one byte; the last fills the bytes that are left.
        let leading = numbers.dropLast()
        guard leading.allSatisfy({ $0 <= 0xFF }) else { return nil }
        let lastBytes = 4 - leading.count
        guard let last = numbers.last, last < (UInt64(1) << (8 * UInt64(lastBytes))) else { return nil }
        var value: UInt64 = 0
        for (index, byte) in leading.enumerated() { value |= byte << UInt64(8 * (3 - index)) }
        return UInt32(value | last)
    }

    /// One IPv4 part: `0x…` hexadecimal (`0x` alone is 0, as in WHATWG URLs), `0…` octal, else
    /// decimal. At most 32 significant digits are read; longer is no number.
    private static func number(_ part: Substring) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            radix = 16
            digits = digits.dropFirst(2)
            if digits.isEmpty { return 0 }
        } else if digits.count > 1, digits.hasPrefix("0") {
            radix = 8
            digits = digits.dropFirst()
        }
        var value: UInt64 = 0
        for character in digits {
            guard let digit = character.hexDigitValue, UInt64(digit) < radix else { return nil }
            // Past 2^32 it is out of range whatever follows; stop before UInt64 overflows.
            guard value <= UInt64(UInt32.max) else { return nil }
            value = value * radix + UInt64(digit)
        }
        return value
    }

    /// RFC 4291 text: eight groups of up to four hexadecimal digits, one `::` for a run of zero
    /// groups, an optional dotted IPv4 tail (strict: four decimal parts), an optional `%zone`.
    static func parseV6(_ text: Substring) -> UInt128? {
        var text = text
        if let percent = text.firstIndex(of: "%") {
            // A zone names an interface; it changes no bit of the address.
            guard text.index(after: percent) < text.endIndex else { return nil }
            text = text[..<percent]
        }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false).map(String.init)
        guard halves.count <= 2 else { return nil }
        func groups(_ half: String, allowingIPv4Tail: Bool) -> [UInt16]? {
            if half.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, allowingIPv4Tail, piece.contains(".") {
                    guard let v4 = strictDottedQuad(piece) else { return nil }
                    result.append(UInt16(v4 >> 16))
                    result.append(UInt16(v4 & 0xFFFF))
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy(\.isHexDigit), let group = UInt16(piece, radix: 16) else {
                    return nil
                }
                result.append(group)
            }
            return result
        }
        let value: [UInt16]
        if halves.count == 2 {
            guard let head = groups(halves[0], allowingIPv4Tail: false), let tail = groups(halves[1], allowingIPv4Tail: true),
                head.count + tail.count <= 7
            else { return nil }
            value = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        } else {
            guard let all = groups(halves[0], allowingIPv4Tail: true), all.count == 8 else { return nil }
            value = all
        }
        return value.reduce(UInt128(0)) { ($0 << 16) | UInt128($1) }
    }

    /// `a.b.c.d`, each 0…255 in decimal without leading zeros (as `inet_pton` reads it).
    private static func strictDottedQuad(_ text: Substring) -> UInt32? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var value: UInt32 = 0
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), part.count == 1 || !part.hasPrefix("0"),
                let byte = UInt32(part), byte <= 255
            else { return nil }
            value = value << 8 | byte
        }
        return value
    }

    // MARK: Writing

    /// The canonical text: dotted IPv4; RFC 5952 IPv6 (lowercase, the longest run of zero groups
    /// as `::`), with a dotted tail for IPv4-mapped addresses.
    package var description: String {
        switch value {
        case .v4(let value): return Self.dotted(value)
        case .v6(let value):
            if value >> 32 == 0xFFFF { return "::ffff:" + Self.dotted(UInt32(truncatingIfNeeded: value)) }
            let groups = (0..<8).map { UInt16(truncatingIfNeeded: value >> (16 * (7 - UInt128($0)))) }
            // The longest run of two or more zero groups, the first of equal ones.
            var best: (start: Int, length: Int) = (-1, 0)
            var index = 0
            while index < 8 {
                guard groups[index] == 0 else {
                    index += 1
                    continue
                }
                var end = index
                while end < 8, groups[end] == 0 { end += 1 }
                if end - index > best.length, end - index >= 2 { best = (index, end - index) }
                index = end
            }
            func hex(_ slice: ArraySlice<UInt16>) -> String { slice.map { String($0, radix: 16) }.joined(separator: ":") }
            guard best.start >= 0 else { return hex(groups[...]) }
            return hex(groups[..<best.start]) + "::" + hex(groups[(best.start + best.length)...])
        }
    }

    private static func dotted(_ value: UInt32) -> String {
        "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
    }

    // MARK: Ranges

    /// A range of addresses a webhook is not sent to unless local targets are allowed: every
    /// address that is not globally reachable unicast.
    package enum Range: String, Sendable, Hashable, CustomStringConvertible {
        /// `0.0.0.0` or `::`.
        case unspecified = "an unspecified address"
        /// `0.0.0.0/8` (other than `0.0.0.0`).
        case thisNetwork = "a \"this network\" address (0.0.0.0/8)"
        /// `127.0.0.0/8` or `::1`.
        case loopback = "a loopback address"
        /// `169.254.0.0/16` or `fe80::/10`, where cloud metadata services answer.
        case linkLocal = "a link-local address (cloud metadata services among them)"
        /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, or local-use NAT64 (`64:ff9b:1::/48`).
        case privateUse = "a private address"
        /// `100.64.0.0/10`, carrier-grade NAT.
        case sharedAddressSpace = "a shared address (carrier-grade NAT, 100.64.0.0/10)"
        /// `fc00::/7`.
        case uniqueLocal = "a unique local address (fc00::/7)"
        /// `fec0::/10` (deprecated).
        case siteLocal = "a site-local address (fec0::/10)"
        /// `224.0.0.0/4` or `ff00::/8`.
        case multicast = "a multicast address"
        /// `255.255.255.255`.
        case broadcast = "the broadcast address"
        /// The ranges set aside for documentation (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`).
        case documentation = "a documentation address"
        /// `198.18.0.0/15`, set aside for benchmarks.
        case benchmarking = "a benchmarking address (198.18.0.0/15)"
        /// Other reserved ranges: `240.0.0.0/4`, IETF protocol assignments (`192.0.0.0/24`, `2001::/23`), the retired 6to4 relay anycast, discard-only and SRv6 prefixes.
        case reserved = "a reserved address"
        /// `::/96`, the deprecated IPv4-compatible IPv6 form.
        case ipv4Compatible = "an IPv4-compatible IPv6 address (::/96, deprecated)"
        /// An IPv6 address outside `2000::/3`, the global unicast range.
        case notGlobalUnicast = "not a global unicast IPv6 address (outside 2000::/3)"

        /// The range's name in words, as an error message gives it.
        package var description: String { rawValue }
    }

    /// The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:0:0/96`), IPv4-
    /// translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64 (`64:ff9b::/96`) and
    /// 6to4 (`2002::/16`). `nil` for IPv4 addresses and other IPv6 addresses.
    var embeddedIPv4: UInt32? {
        guard case .v6(let value) = value else { return nil }
        let low32 = UInt32(truncatingIfNeeded: value)
        if value >> 32 == 0xFFFF || value >> 32 == 0xFFFF_0000 || value >> 32 == 0 { return low32 }
        if value >> 32 == 0x0064_FF9B_0000_0000_0000_0000 { return low32 }
        if value >> 112 == 0x2002 { return UInt32(truncatingIfNeeded: value >> 80) }
        return nil
    }

    /// The refused range the address is in, or `nil` for a globally reachable unicast address.
    /// An IPv6 form of an IPv4 address (mapped, NAT64, 6to4, …) is judged by that IPv4 address.
    package var refusedRange: Range? {
        switch value {
        case .v4(let value): return Self.range(v4: value)
        case .v6(let value):
            if value == 0 { return .unspecified }
            if value == 1 { return .loopback }
            if value >> 32 == 0 {
                // ::a.b.c.d: deprecated, and some stacks treat it as the IPv4 address.
                return Self.range(v4: UInt32(truncatingIfNeeded: value)) ?? .ipv4Compatible
            }
            if let v4 = embeddedIPv4 { return Self.range(v4: v4) }
            func prefix(_ bits: Int, is head: UInt128) -> Bool { value >> UInt128(128 - bits) == head >> UInt128(128 - bits) }
            if prefix(8, is: 0xFF00 << 112) { return .multicast }
            if prefix(10, is: 0xFE80 << 112) { return .linkLocal }
            if prefix(10, is: 0xFEC0 << 112) { return .siteLocal }
            if prefix(7, is: 0xFC00 << 112) { return .uniqueLocal }
            // NAT64 for local use (RFC 8215), discard-only (RFC 6666).
            if prefix(48, is: 0x0064_FF9B_0001 << 80) { return .privateUse }
            if prefix(64, is: 0x0100 << 112) { return .reserved }
            if prefix(32, is: 0x2001_0DB8 << 96) || prefix(20, is: 0x3FFF << 112) { return .documentation }
            // IETF protocol assignments (Teredo, ORCHID, benchmarking 2001:2::/48, …).
            if prefix(23, is: 0x2001 << 112) { return .reserved }
            // SRv6 segment identifiers (RFC 9602).
            if prefix(16, is: 0x5F00 << 112) { return .reserved }
            if !prefix(3, is: 0x2000 << 112) { return .notGlobalUnicast }
            return nil
        }
    }

    private static func range(v4 value: UInt32) -> Range? {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool { value >> (32 - bits) == network >> (32 - bits) }
        if value == 0 { return .unspecified }
        if value == 0xFFFF_FFFF { return .broadcast }
        if within(0x0000_0000, 8) { return .thisNetwork }
        if within(0x7F00_0000, 8) { return .loopback }
        if within(0xA9FE_0000, 16) { return .linkLocal }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) { return .privateUse }
        if within(0x6440_0000, 10) { return .sharedAddressSpace }
        if within(0xE000_0000, 4) { return .multicast }
        if within(0xF000_0000, 4) { return .reserved }
        if within(0xC000_0200, 24) || within(0xC633_6400, 24) || within(0xCB00_7100, 24) { return .documentation }
        if within(0xC612_0000, 15) { return .benchmarking }
        // IETF protocol assignments (192.0.0.0/24) and the retired 6to4 relay anycast.
        if within(0xC000_0000, 24) || within(0xC058_6300, 24) { return .reserved }
        return nil
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
