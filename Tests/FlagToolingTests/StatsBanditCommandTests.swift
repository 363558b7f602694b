import Foundation
import Testing

/// `flags stats bandit`, running the built tool: the allocation's fields and weights, `--lines`
/// with a line that cannot be used, and refusals naming the field.
struct StatsBanditCommandTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func input(_ json: String) throws -> URL {
        let file = directory.appendingPathComponent("input.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    static let twoArms = #"{"arms": [{"name": "off", "units": 5000, "conversions": 410}, {"name": "on", "units": 5021, "conversions": 468}], "minimumShare": 0.05, "stopping": {"expectedLossThreshold": 0.0005, "minimumUnitsPerArm": 1000}}"#

    @Test func anAllocationGivesEachArmsChanceLossAndWeight() throws {
        let result = try FlagsTool.run(["stats", "bandit", try input(Self.twoArms).path])
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(Set(output.keys) == ["inputs", "arms", "weightTotal", "leader", "decision"])
        #expect(output["weightTotal"] as? Int == 10_000)
        #expect(output["leader"] as? String == "on")
        let arms = output["arms"] as! [[String: Any]]
        #expect(arms.map { $0["name"] as? String } == ["off", "on"])
        #expect(arms.map { $0["weight"] as? Int } == [713, 9287])
        // scipy: P(best) 0.023647377851858362 and 0.9763526221481417 (compare_bandit.py).
        #expect(abs((arms[1]["probabilityToBeBest"] as! Double) - 0.9763526221481417) < 1e-9)
        let posterior = arms[0]["posterior"] as! [String: Double]
        #expect(posterior == ["alpha": 411, "beta": 4591])
        let decision = output["decision"] as! [String: Any]
        #expect(decision["outcome"] as? String == "winner" && decision["arm"] as? String == "on")
    }

    @Test func linesAnswerEachLineInOrderAndGoOnAfterOneThatCannotBeUsed() throws {
        let bad = #"{"arms": [{"name": "a", "units": 10, "conversions": 11}, {"name": "b", "units": 10, "conversions": 1}]}"#
        let result = try FlagsTool.run(["stats", "bandit", "--lines", try input(Self.twoArms + "\n" + bad + "\n" + Self.twoArms + "\n").path])
        #expect(result.status == 2)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0] == lines[2])
        #expect(lines[1] == #"{"error":"arms[0].conversions: 11.0 conversions is more than the arm's 10.0 units"}"#)
        #expect(result.standardError.contains("1 of 3 lines could not be used"))
    }

    @Test(arguments: [
        (#"{"arms": [{"name": "a", "units": 10, "conversions": 1}]}"#, "arms"),
        (#"{"arms": [{"name": "a", "units": -1, "conversions": 0}, {"name": "b", "units": 1, "conversions": 0}]}"#, "arms[0].units"),
        (#"{"arms": [{"name": "a", "units": 1, "conversions": 0}, {"name": "b", "units": 1, "conversions": 0}], "minimumShare": 0.6}"#, "minimumShare"),
        (#"{"arms": [{"name": "a", "units": 1, "conversions": 0}, {"name": "b", "units": 1}]}"#, "arms[1]"),
    ])
    func badInputIsRefusedNamingTheField(_ json: String, _ field: String) throws {
        let result = try FlagsTool.run(["stats", "bandit", try input(json).path])
        #expect(result.status == 2, "\(json): \(result.standardOutput)")
        #expect(result.standardError.contains(field), "\(json): \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }
}
