@testable import FlagServer
@testable import FlagServerModel
import Testing

struct HexEncodingTests {
    @Test func bytesBecomeTwoLowercaseDigitsEach() {
        #expect([UInt8]([0x00, 0x0f, 0xa0, 0xff]).lowercaseHex == "000fa0ff")
        #expect([UInt8]().lowercaseHex == "")
    }

    @Test func tokenDigestsAreHexSHA256() {
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        #expect(TokenIssuer.digest(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
