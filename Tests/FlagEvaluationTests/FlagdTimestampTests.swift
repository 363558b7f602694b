import Foundation
import Testing

@testable import FlagEvaluation

/// `$flagd.timestamp` after January 2038: 64-bit seconds, and a JSON number a 32-bit `Int`
/// (Apple Watch) does not have to hold. Before, the seconds went through `Int(exactly:) ?? 0`,
/// so on a watch every rule saw 1970 from 2038 on.
struct FlagdTimestampTests {
    /// 2040-01-01T00:00:00Z.
    static let after2038: Int64 = 2_208_988_800

    @Test func theEvaluatorsClockIsSixtyFourBits() {
        let seconds: Int64 = FlagEvaluator.unixSeconds(Date(timeIntervalSince1970: 2_208_988_800.75))
        #expect(seconds == Self.after2038)
        #expect(FlagEvaluator.unixSeconds(Date(timeIntervalSince1970: -0.25)) == -1)
    }

    @Test func aTimestampAThirtyTwoBitIntCannotHoldIsADouble() {
        #expect(LogicData.timestampValue(Self.after2038, intBitWidth: 32) == .double(2_208_988_800))
        #expect(LogicData.timestampValue(2_147_483_647, intBitWidth: 32) == .int(2_147_483_647))
        #expect(LogicData.timestampValue(-2_147_483_649, intBitWidth: 32) == .double(-2_147_483_649))
        #expect(LogicData.timestampValue(Self.after2038, intBitWidth: 64) == .int(2_208_988_800))
    }

    /// A rule comparing the clock with a moment after 2038 sees the time either way.
    @Test(arguments: [32, 64])
    func rulesCompareATimestampAfter2038(intBitWidth: Int) throws {
        let rule = try JSONLogicRule(JSONValue(parsing: #"{">=": [{"var": "now"}, 2208988800]}"#))
        let data: JSONValue = ["now": LogicData.timestampValue(Self.after2038, intBitWidth: intBitWidth)]
        #expect(rule.evaluate(data: data) == .bool(true))
        let before: JSONValue = ["now": LogicData.timestampValue(Self.after2038 - 1, intBitWidth: intBitWidth)]
        #expect(rule.evaluate(data: before) == .bool(false))
    }
}
