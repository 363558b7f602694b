import Foundation
import Testing

/// `flags stats adjust` and `flags stats quantile`, running the built tool: whole outputs where
/// they are exact, fields where they come from numerical integration, and refusals with the field.
struct StatsAdjustCommandTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func input(_ json: String) throws -> URL {
        let file = directory.appendingPathComponent("input.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @Test func holmWritesTheAdjustedPValuesInInputOrder() throws {
        let file = try input(#"{"pValues": [0.01, 0.04, 0.03, 0.005, 1.5]}"#)
        let result = try FlagsTool.run(["stats", "adjust", "--method", "holm", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        // m = 5 (1.5 is not a probability: it counts, ranks last and comes back null).
        #expect(
            result.standardOutput == """
                {
                  "adjusted" : [
                    0.04,
                    0.09,
                    0.09,
                    0.025,
                    null
                  ],
                  "method" : "holm"
                }

                """)
    }

    @Test func benjaminiHochbergIsTheEngines() throws {
        let file = try input(#"{"pValues": [0.01, 0.04, 0.03, 0.005]}"#)
        let result = try FlagsTool.run(["stats", "adjust", "--method", "bh", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(output["adjusted"] as? [Double] == [0.02, 0.04, 0.04, 0.02])
    }

    @Test func dunnettWritesPValuesAndTheCriticalValue() throws {
        let file = try input(#"""
            {"controlUnits": 20, "treatmentUnits": [20, 20, 20], "degreesOfFreedom": "infinity",
             "tStatistics": [2.5, -1, 0], "alpha": 0.05}
            """#)
        let result = try FlagsTool.run(["stats", "adjust", "--method", "dunnett", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(output["method"] as? String == "dunnett")
        #expect(output["alpha"] as? Double == 0.05)
        // Dunnett's table: 2.35 for three equal treatments at ν = ∞.
        let critical = try #require(output["criticalValue"] as? Double)
        #expect(abs(critical - 2.35) < 0.005)
        let adjusted = try #require(output["adjusted"] as? [Double])
        #expect(adjusted.count == 3 && adjusted[2] == 1)
        // Between the single comparison's p-value and Bonferroni's.
        let single = erfc(2.5 / 2.0.squareRoot())
        #expect(adjusted[0] > single && adjusted[0] < 3 * single && adjusted[1] > adjusted[0])
    }

    @Test func dunnettRefusesInputWithItsField() throws {
        for (json, field) in [
            (#"{"controlUnits": 20, "treatmentUnits": [20, 1], "degreesOfFreedom": 5, "tStatistics": [1, 2]}"#, "treatmentUnits[1]"),
            (#"{"controlUnits": 20, "treatmentUnits": [20], "degreesOfFreedom": "inf", "tStatistics": [1]}"#, "degreesOfFreedom"),
            (#"{"controlUnits": 20, "treatmentUnits": [20], "degreesOfFreedom": 0.5, "tStatistics": [1]}"#, "degreesOfFreedom"),
            (#"{"controlUnits": 20, "treatmentUnits": [20], "degreesOfFreedom": 5, "tStatistics": [1], "alpha": 1}"#, "alpha"),
            (#"{"controlUnits": 20, "treatmentUnits": [20], "degreesOfFreedom": 5}"#, "tStatistics"),
        ] {
            let result = try FlagsTool.run(["stats", "adjust", "--method", "dunnett", try input(json).path])
            #expect(result.status == 2, "\(json)")
            #expect(result.standardError.contains(field), "\(json): \(result.standardError)")
            #expect(result.standardOutput.isEmpty)
        }
    }

    @Test func quantileComparesOneOrManyPairsOfArms() throws {
        let pair = #"""
            {"probability": 0.5, "treatment": [32, 39, 26, 35, 43, 27, 40, 37, 34, 29],
             "control": [36, 44, 47, 42, 49, 39, 46, 31, 33, 48]}
            """#
        let single = try FlagsTool.run(["stats", "quantile", try input(pair).path])
        #expect(single.status == 0, "\(single.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(single.standardOutput.utf8)) as! [String: Any]
        // Bonett & Price's example: −8.5, SE 4.316291.
        #expect(output["estimate"] as? Double == -8.5)
        #expect(abs((output["standardError"] as! Double) - 4.316291) < 5e-7)
        #expect((output["treatment"] as? [String: Any])?["lowerRank"] as? Int == 2)
        let many = try FlagsTool.run(["stats", "quantile", try input("[\(pair), \(pair)]").path])
        #expect(many.status == 0, "\(many.standardError)")
        let results = try JSONSerialization.jsonObject(with: Data(many.standardOutput.utf8)) as! [[String: Any]]
        #expect(results.count == 2 && results[1]["estimate"] as? Double == -8.5)
    }

    @Test func quantileRefusesTooFewValuesNamingTheComparisonAndTheArm() throws {
        let pair = #"{"probability": 0.5, "treatment": [1, 2, 3, 4, 5, 6], "control": [1, 2, 3, 4, 5, 6]}"#
        let short = #"{"probability": 0.5, "treatment": [1, 2, 3, 4, 5, 6], "control": [1, 2, 3]}"#
        let result = try FlagsTool.run(["stats", "quantile", try input("[\(pair), \(short)]").path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("[1].control"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }
}
