#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Testing

/// How webhook URL hosts are read as addresses (``IPAddress``) and which ranges are refused
/// (Server/Docs/Webhooks.md, "URL rules"); every spelling is also checked against the C
/// library's own reading of it.
struct WebhookAddressTests {
    /// A host as written, the address it stands for (canonical text) and its refused range
    /// (`nil`: global, allowed).
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var canonical: String
        var range: IPAddress.Range?
        var testDescription: String { text }

        init(_ text: String, _ canonical: String, _ range: IPAddress.Range?) {
            self.text = text
            self.canonical = canonical
            self.range = range
        }
    }

    static let cases: [Case] = [
        // The spellings of issue 34.
        Case("127.1", "127.0.0.1", .loopback),
        Case("127.0.1", "127.0.0.1", .loopback),
        Case("0177.0.0.1", "127.0.0.1", .loopback),
        Case("0", "0.0.0.0", .unspecified),
        Case("0::1", "::1", .loopback),
        Case("0000::1", "::1", .loopback),
        Case("::0:1", "::1", .loopback),
        Case("::ffff:7f00:1", "::ffff:127.0.0.1", .loopback),
        Case("169.254.43518", "169.254.169.254", .linkLocal),
        Case("0251.254.169.254", "169.254.169.254", .linkLocal),
        Case("::ffff:a9fe:a9fe", "::ffff:169.254.169.254", .linkLocal),
        // Every inet_aton form: one to four parts, decimal, octal, hexadecimal, mixed.
        Case("2130706433", "127.0.0.1", .loopback),
        Case("017700000001", "127.0.0.1", .loopback),
        Case("0x7f000001", "127.0.0.1", .loopback),
        Case("0X7F.1", "127.0.0.1", .loopback),
        Case("0x7f.0.0.1", "127.0.0.1", .loopback),
        Case("127.0.0.01", "127.0.0.1", .loopback),
        Case("00000000000000177.0.0.1", "127.0.0.1", .loopback),
        Case("127.0.0.1.", "127.0.0.1", .loopback),
        Case("127.255.255.254", "127.255.255.254", .loopback),
        Case("0xa9.0xfe.0xa9.0xfe", "169.254.169.254", .linkLocal),
        Case("2852039166", "169.254.169.254", .linkLocal),
        Case("0.0.0.0", "0.0.0.0", .unspecified),
        Case("0x", "0.0.0.0", .unspecified),
        Case("0.1.2.3", "0.1.2.3", .thisNetwork),
        Case("10.1", "10.0.0.1", .privateUse),
        Case("012.0.0.1", "10.0.0.1", .privateUse),
        Case("172.16.0.1", "172.16.0.1", .privateUse),
        Case("172.31.255.255", "172.31.255.255", .privateUse),
        Case("172.32.0.1", "172.32.0.1", nil),
        Case("192.168.1.1", "192.168.1.1", .privateUse),
        Case("192.168.65535", "192.168.255.255", .privateUse),
        Case("100.64.0.1", "100.64.0.1", .sharedAddressSpace),
        Case("100.127.255.255", "100.127.255.255", .sharedAddressSpace),
        Case("100.128.0.1", "100.128.0.1", nil),
        Case("224.0.0.1", "224.0.0.1", .multicast),
        Case("239.255.255.250", "239.255.255.250", .multicast),
        Case("240.0.0.1", "240.0.0.1", .reserved),
        Case("255.255.255.255", "255.255.255.255", .broadcast),
        Case("4294967295", "255.255.255.255", .broadcast),
        Case("192.0.0.8", "192.0.0.8", .reserved),
        Case("192.0.2.1", "192.0.2.1", .documentation),
        Case("198.51.100.7", "198.51.100.7", .documentation),
        Case("203.0.113.9", "203.0.113.9", .documentation),
        Case("198.18.0.1", "198.18.0.1", .benchmarking),
        Case("8.8.8.8", "8.8.8.8", nil),
        Case("134744072", "8.8.8.8", nil),
        Case("0x08.0x08.0x0808", "8.8.8.8", nil),
        Case("93.184.215.14", "93.184.215.14", nil),
        // IPv6: compression, embedded IPv4, mapped, translated, compatible, NAT64, 6to4, zones.
        Case("::", "::", .unspecified),
        Case("0:0:0:0:0:0:0:0", "::", .unspecified),
        Case("::1", "::1", .loopback),
        Case("0:0:0:0:0:0:0:1", "::1", .loopback),
        Case("::ffff:127.0.0.1", "::ffff:127.0.0.1", .loopback),
        Case("0:0:0:0:0:ffff:127.0.0.1", "::ffff:127.0.0.1", .loopback),
        Case("::FFFF:7F00:0001", "::ffff:127.0.0.1", .loopback),
        Case("::ffff:10.0.0.1", "::ffff:10.0.0.1", .privateUse),
        Case("::ffff:0:127.0.0.1", "::ffff:0:7f00:1", .loopback),
        Case("::127.0.0.1", "::7f00:1", .loopback),
        Case("::169.254.169.254", "::a9fe:a9fe", .linkLocal),
        Case("::8.8.8.8", "::808:808", .ipv4Compatible),
        Case("64:ff9b::7f00:1", "64:ff9b::7f00:1", .loopback),
        Case("64:ff9b::169.254.169.254", "64:ff9b::a9fe:a9fe", .linkLocal),
        Case("64:ff9b::808:808", "64:ff9b::808:808", nil),
        Case("64:ff9b:1::1", "64:ff9b:1::1", .privateUse),
        Case("2002:7f00:1::", "2002:7f00:1::", .loopback),
        Case("2002:a9fe:a9fe::1", "2002:a9fe:a9fe::1", .linkLocal),
        Case("2002:808:808::1", "2002:808:808::1", nil),
        Case("fe80::1", "fe80::1", .linkLocal),
        Case("FE80::1%eth0", "fe80::1", .linkLocal),
        Case("febf:ffff::1", "febf:ffff::1", .linkLocal),
        Case("fec0::1", "fec0::1", .siteLocal),
        Case("fc00::1", "fc00::1", .uniqueLocal),
        Case("fd00:ec2::254", "fd00:ec2::254", .uniqueLocal),
        Case("ff02::1", "ff02::1", .multicast),
        Case("100::1", "100::1", .reserved),
        Case("2001::1", "2001::1", .reserved),
        Case("2001:db8::1", "2001:db8::1", .documentation),
        Case("3fff::1", "3fff::1", .documentation),
        Case("5f00::1", "5f00::1", .reserved),
        Case("4000::1", "4000::1", .notGlobalUnicast),
        Case("1::", "1::", .notGlobalUnicast),
        Case("2606:4700:4700::1111", "2606:4700:4700::1111", nil),
        Case("2a00:1450:4001:80b:0:0:0:200e", "2a00:1450:4001:80b::200e", nil),
        Case("2001:4860:0:0:1:0:0:8888", "2001:4860::1:0:0:8888", nil),
        Case("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0", .notGlobalUnicast),
    ]

    /// Host names and malformed spellings: no address (a name is judged by what it resolves to).
    static let notAddresses = [
        "", "example.com", "localhost", "1.2.3.4.5", "256.0.0.1", "1.256.0.1", "1.2.3.256", "1.2.65536", "1.16777216",
        "4294967296", "0x100000000", "08.0.0.1", "0.0.0.09", "1..2", ".1", "1.2.3.4..", "0xg", "1e3", "+1", "-1", "1.2.3.-4",
        "1:2:3:4:5:6:7:8:9", "1::2::3", ":::1", "::ffff:1.2.3", "::1.2.3.04", "12345::1", "g::1", "+1::1", "[::1]", "fe80::1%",
        "1.2.3.4:80", "::ffff:256.0.0.1", "1:2:3:4:5:6:7:8::", "1:2:3:4:5:6:1.2.3.4:5", ":1::", "1:", " 127.0.0.1", "127.0.0.1 ",
    ]

    @Test(arguments: cases)
    func everySpellingIsReadAsItsAddressAndJudged(_ example: Case) throws {
        let address = try #require(IPAddress(example.text))
        #expect(address.description == example.canonical)
        #expect(address.refusedRange == example.range)
        // The canonical text reads back as the same address.
        #expect(IPAddress(address.description) == address)
    }

    @Test(arguments: notAddresses)
    func namesAndMalformedSpellingsAreNoAddress(_ text: String) {
        #expect(IPAddress(text) == nil)
    }

    /// The C library is the reference: every table entry it reads as a number (the resolver the
    /// HTTP client would otherwise use) is read as the same address here, and none it refuses is
    /// read here except the two WHATWG forms (a trailing dot, a bare `0x`).
    @Test
    func theCLibraryReadsEveryEntryAlike() {
        for example in Self.cases {
            let reference = Self.numericAddress(example.text)
            if example.text.hasSuffix(".") || example.text == "0x" {
                #expect(reference == nil, "\(example.text)")
            } else {
                #expect(reference != nil && reference == IPAddress(example.text), "\(example.text)")
            }
        }
        for text in Self.notAddresses { #expect(Self.numericAddress(text) == nil, "\(text)") }
    }

    /// Many generated spellings (a fixed seed): whatever the C library reads as an address is read
    /// here as the same address, so a spelling refused here can never reach an address by
    /// another reading.
    @Test
    func generatedSpellingsAgreeWithTheCLibrary() {
        var generator = SeededRandom(seed: 34)  // SplitMix64: the same spellings on every run
        let alphabet = Array("0123456789abcdefxX.:f%")
        var compared = 0
        for _ in 0..<20_000 {
            let length = Int.random(in: 1...14, using: &generator)
            let text = String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
            guard let reference = Self.numericAddress(text) else { continue }
            compared += 1
            #expect(IPAddress(text) == reference, "\(text)")
        }
        #expect(compared > 100)
    }

    @Test
    func refusalsNameTheHostTheAddressAndTheRule() {
        let strict = WebhookOptions()
        #expect(strict.problem(url: "http://127.1:8080/x") == "url: 127.1 (127.0.0.1) is a loopback address; " + WebhookOptions.refusalRule)
        #expect(
            strict.problem(url: "http://[::ffff:a9fe:a9fe]/latest")
                == "url: ::ffff:a9fe:a9fe (::ffff:169.254.169.254) is a link-local address (cloud metadata services among them); "
                + WebhookOptions.refusalRule)
        #expect(strict.problem(url: "http://10.0.0.5/x") == "url: 10.0.0.5 is a private address; " + WebhookOptions.refusalRule)
        #expect(strict.problem(url: "http://app.localhost/x") == "url: app.localhost is a loopback name; " + WebhookOptions.refusalRule)
        #expect(WebhookOptions.refusalRule.contains("--allow-local-webhooks"))
        for example in Self.cases {
            let host = example.text.contains(":") ? "[\(example.text.replacingOccurrences(of: "%", with: "%25"))]" : example.text
            let problem = strict.problem(url: "http://\(host):8080/hook")
            #expect((problem == nil) == (example.range == nil), "\(example.text): \(problem ?? "accepted")")
        }
    }

    /// `getaddrinfo` with `AI_NUMERICHOST`: the C library's reading of `text` as an address.
    static func numericAddress(_ text: String) -> IPAddress? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICHOST
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(text, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        guard let address = first.pointee.ai_addr else { return nil }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                IPAddress(v4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                let bytes = withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                return IPAddress(v6: bytes.reduce(UInt128(0)) { $0 << 8 | UInt128($1) })
            }
        default:
            return nil
        }
    }
}
