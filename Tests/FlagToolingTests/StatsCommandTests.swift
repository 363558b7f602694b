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
        let plan = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let units = plan["unitsPerArm"] as! Double
        #expect(plan["totalUnits"] as? Double == 2 * units)
        #expect(plan["days"] as? Double == (2 * units / 4000).rounded(.up))
        #expect(plan["test"] as? String == "sequential")
        #expect((plan["achievedPower"] as! Double) >= 0.8)
        let refused = try FlagsTool.run(["stats", "plan", "--effect", "0.1"])
        #expect(refused.status == 2)
    }

    @Test func plansTheDetectableEffectAtASize() throws {
        let result = try FlagsTool.run(["stats", "plan", "--baseline", "0.08", "--units-per-arm", "20000", "--arms", "3"])
        #expect(result.status == 0, "\(result.standardError)")
        let answer = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        let effect = answer["minimumDetectableEffect"] as! Double
        #expect(effect > 0 && effect < 0.05)
        #expect(answer["comparisons"] as? Int == 2)
        // Planning that effect back gives the same size.
        let back = try FlagsTool.run(["stats", "plan", "--baseline", "0.08", "--effect", "\(effect)", "--arms", "3"])
        let plan = try JSONSerialization.jsonObject(with: Data(back.standardOutput.utf8)) as! [String: Any]
        #expect(abs((plan["unitsPerArm"] as! Double) - 20_000) <= 2)
    }

    /// α ≤ 1e-16 and 1e100 units ended the process with signal 4; now a refusal naming the field,
    /// and finite numbers.
    @Test func extremeInputsAreRefusedOrAnsweredWithoutACrash() throws {
        let tiny = try FlagsTool.run(["stats", "plan", "--baseline", "0.1", "--effect", "0.01", "--alpha", "1e-17"])
        #expect(tiny.status == 2)
        #expect(tiny.standardError.contains("alpha: must be from 1e-12 to 0.5"), "\(tiny.standardError)")
        let analyze = try FlagsTool.run(["stats", "analyze", try input(#"""
            {"control": "off", "alpha": 1e-17, "metrics": [{"name": "m", "kind": "conversion",
              "arms": {"off": {"units": 500, "sum": 60}, "on": {"units": 500, "sum": 64}}}]}
            """#).path])
        #expect(analyze.status == 2)
        #expect(analyze.standardError.contains("alpha"))
        let huge = try FlagsTool.run(["stats", "analyze", try input(#"""
            {"control": "off", "metrics": [{"name": "m", "kind": "mean",
              "arms": {"off": {"units": 1e100, "sum": 3e99, "sumOfSquares": 5e99},
                       "on": {"units": 1e100, "sum": 3.0000001e99, "sumOfSquares": 5e99}}}]}
            """#).path])
        #expect(huge.status == 0, "\(huge.standardError)")
        #expect(!huge.standardOutput.contains("nan") && !huge.standardOutput.contains("inf"))
        let power = try FlagsTool.run(["stats", "plan", "--baseline", "0.1", "--effect", "0.01", "--power", "1.5"])
        #expect(power.status == 2)
        #expect(power.standardError.contains("power"))
    }
}

/// `flags stats analyze --lines`: one experiment per input line, one analysis per output line.
struct StatsAnalyzeLinesTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func lines(_ lines: [String]) throws -> URL {
        let file = directory.appendingPathComponent("experiments.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        return file
    }

    static func experiment(control: Int, treatment: Int) -> String {
        #"{"control": "off", "metrics": [{"name": "m", "kind": "conversion", "#
            + #""arms": {"off": {"units": 1000, "sum": \#(control)}, "on": {"units": 1000, "sum": \#(treatment)}}}]}"#
    }

    func outputLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    static func difference(_ analysis: [String: Any]) -> Double? {
        let metric = (analysis["metrics"] as? [[String: Any]])?.first
        let comparison = (metric?["comparisons"] as? [[String: Any]])?.first
        return (comparison?["absolute"] as? [String: Any])?["estimate"] as? Double
    }

    @Test func answersEachLineOnALineOfItsOwnInOrder() throws {
        let file = try lines([Self.experiment(control: 100, treatment: 120), Self.experiment(control: 200, treatment: 150) + "\n"])
        let result = try FlagsTool.run(["stats", "analyze", "--lines", file.path])
        #expect(result.status == 0, "\(result.standardError)")
        let answers = try outputLines(result.standardOutput)
        #expect(answers.count == 2)
        #expect(abs(Self.difference(answers[0])! - 0.02) < 1e-15)
        #expect(abs(Self.difference(answers[1])! + 0.05) < 1e-15)
    }

    @Test func aLineThatCannotBeAnalysedGetsAnErrorLineAndTheRunGoesOn() throws {
        let file = try lines([
            Self.experiment(control: 100, treatment: 120),
            Self.experiment(control: 1001, treatment: 120),
            #"{"control": "off", "metrics": [{"name": "m", "kind": "median", "arms": {}}]}"#,
            "not json",
            "",
            Self.experiment(control: 300, treatment: 310),
        ])
        let result = try FlagsTool.run(["stats", "analyze", "--lines", file.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("4 of 6 lines"), "\(result.standardError)")
        let answers = try outputLines(result.standardOutput)
        #expect(answers.count == 6)
        #expect(abs(Self.difference(answers[0])! - 0.02) < 1e-15)
        #expect((answers[1]["error"] as? String)?.hasPrefix("metrics[0].arms.off.sum: ") == true, "\(answers[1])")
        #expect((answers[2]["error"] as? String)?.hasPrefix("metrics[0].kind: ") == true, "\(answers[2])")
        #expect(answers[3]["error"] is String)
        #expect((answers[4]["error"] as? String)?.hasPrefix("line 5: ") == true, "\(answers[4])")
        #expect(abs(Self.difference(answers[5])! - 0.01) < 1e-15)
        #expect(answers.allSatisfy { ($0["error"] == nil) != ($0["metrics"] == nil) })
    }
}
