import Foundation
import Testing

/// `flags stats`, running the built tool: its JSON in and out, and its refusals.
struct StatsCommandTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func input(_ json: String) throws -> URL {
        let file = directory.appendingPathComponent("experiment.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @Test func analyzesAConversionExperiment() throws {
        let file = try input(#"""
            {"control": "off", "allocation": {"off": 1, "on": 1},
             "metrics": [{"name": "checkout", "kind": "conversion",
                          "arms": {"off": {"units": 5000, "sum": 410}, "on": {"units": 5021, "sum": 468}}}]}
            """#)
        let result = try FlagsTool.run(["stats", "analyze", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        let analysis = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let metric = (analysis["metrics"] as! [[String: Any]])[0]
        let comparison = (metric["comparisons"] as! [[String: Any]])[0]
        let absolute = comparison["absolute"] as! [String: Any]
        #expect(abs((absolute["estimate"] as! Double) - (468.0 / 5021 - 410.0 / 5000)) < 1e-15)
        #expect(comparison["arm"] as? String == "on")
        // The inputs come back with the analysis, so that it can be recomputed.
        #expect((analysis["inputs"] as? [String: Any])?["control"] as? String == "off")
        #expect((analysis["sampleRatio"] as? [String: Any])?["mismatch"] as? Bool == false)
    }

    @Test func refusesStatisticsThatCannotBeAnalysedWithWhere() throws {
        let file = try input(#"""
            {"control": "off", "metrics": [{"name": "checkout", "kind": "conversion",
              "arms": {"off": {"units": 50, "sum": 60}, "on": {"units": 50, "sum": 4}}}]}
            """#)
        let result = try FlagsTool.run(["stats", "analyze", file.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("metrics[0].arms.off.sum"))
        #expect(result.standardOutput.isEmpty)
    }

    @Test func refusesMalformedJSONWithThePath() throws {
        let file = try input(#"{"control": "off", "metrics": [{"name": "m", "kind": "median", "arms": {}}]}"#)
        let result = try FlagsTool.run(["stats", "analyze", file.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("metrics[0].kind"), "\(result.standardError)")
    }

    @Test func plansASampleSize() throws {
        let result = try FlagsTool.run(["stats", "plan", "--baseline", "0.08", "--effect", "0.125", "--relative", "--units-per-day", "4000"])
        #expect(result.status == 0, "\(result.standardError)")
        let plan = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Double]
        #expect(plan["totalUnits"] == 2 * plan["unitsPerArm"]!)
        #expect(plan["days"] == (plan["totalUnits"]! / 4000).rounded(.up))
        let refused = try FlagsTool.run(["stats", "plan", "--effect", "0.1"])
        #expect(refused.status == 2)
    }
}
