import Benchmark
import FlagEvaluation
import Foundation

// Benchmarks of the targeting engine (issue 4, "Performance"), each beside the in-run baseline
// of a static flag (no targeting), 1,000 evaluations per iteration:
//
//   Eval.Static       a flag without targeting: the baseline
//   Eval.Targeted     `if` / `in` / `var` on two attributes
//   Eval.Fractional   a `fractional` rollout over four variants
//   Eval.Fractional.v3  the same rollout with v3 (CBOR) bucketing
//   Eval.JSONLogic    the targeted rule as plain JSON Logic (`JSONLogicRule.evaluate(data:)`),
//                     to compare with other JSON Logic engines (datalogic-rs: 155–226 ns)
//   Load.Definitions  loading 10,000 flag definitions (time and peak memory)
//   Baseline.Load.JSONSerialization  only parsing the same document with `JSONSerialization`:
//                     Load.Definitions' in-run baseline

let definitionsJSON = #"""
{
  "flags": {
    "static-flag": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"},
    "targeted-flag": {
      "state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
      "targeting": {"if": [{"and": [{"in": [{"var": "plan"}, ["pro", "team"]]}, {"==": [{"var": "country"}, "NZ"]}]}, "on", "off"]}
    },
    "rollout-flag": {
      "state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c", "d": "d"}, "defaultVariant": "a",
      "targeting": {"fractional": [["a", 25], ["b", 25], ["c", 25], ["d", 25]]}
    }
  }
}
"""#

func manyDefinitions(_ count: Int) -> Data {
    var text = #"{"flags": {"#
    for index in 0..<count {
        if index > 0 { text += "," }
        switch index % 3 {
        case 0:
            text += #""flag-\#(index)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off"}"#
        case 1:
            text += #""flag-\#(index)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off", "targeting": {"if": [{"in": [{"var": "plan"}, ["pro", "team"]]}, "on", "off"]}}"#
        default:
            text += #""flag-\#(index)": {"state": "ENABLED", "variants": {"a": "a", "b": "b"}, "defaultVariant": "a", "targeting": {"fractional": [["a", 50], ["b", 50]]}, "metadata": {"owner": "team-\#(index % 7)"}}"#
        }
    }
    return Data((text + "}}").utf8)
}

let benchmarks: @Sendable () -> Void = {
    let (definitions, problems) = FlagDefinitions.load([FlagSource(name: "bench.json", json: definitionsJSON)])
    precondition(problems.isEmpty, "\(problems)")
    let evaluator = FlagEvaluator(definitions: definitions)
    let context = EvaluationContext(targetingKey: "user-42", attributes: ["plan": "pro", "country": "NZ"])
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )

    func evaluate(_ key: String, _ type: EvaluationType, _ fallback: JSONValue, _ benchmark: Benchmark) {
        for _ in benchmark.scaledIterations {
            blackHole(evaluator.evaluate(flag: key, type: type, default: fallback, context: context, now: now))
        }
    }

    Benchmark("Eval.Static", configuration: configuration) { evaluate("static-flag", .boolean, false, $0) }
    Benchmark("Eval.Targeted", configuration: configuration) { evaluate("targeted-flag", .boolean, false, $0) }
    Benchmark("Eval.Fractional", configuration: configuration) { evaluate("rollout-flag", .string, "a", $0) }

    let v3Evaluator = FlagEvaluator(definitions: definitions, bucketing: .v3)
    Benchmark("Eval.Fractional.v3", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(v3Evaluator.evaluate(flag: "rollout-flag", type: .string, default: "a", context: context, now: now))
        }
    }

    let targetedRule = try! JSONLogicRule(
        JSONValue(parsing: #"{"if": [{"and": [{"in": [{"var": "plan"}, ["pro", "team"]]}, {"==": [{"var": "country"}, "NZ"]}]}, "on", "off"]}"#))
    let ruleData: JSONValue = ["plan": "pro", "country": "NZ"]
    precondition(targetedRule.evaluate(data: ruleData) == "on")
    Benchmark("Eval.JSONLogic", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(targetedRule.evaluate(data: ruleData))
        }
    }

    let data = manyDefinitions(10_000)
    let loadConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident, .peakMemoryResidentDelta],
        maxDuration: .seconds(3), maxIterations: 30)
    Benchmark("Load.Definitions", configuration: loadConfiguration) { _ in
        let (loaded, problems) = FlagDefinitions.load([FlagSource(name: "many.json", data: data)])
        precondition(problems.isEmpty && loaded.flags.count == 10_000)
        blackHole(loaded)
    }
    Benchmark("Baseline.Load.JSONSerialization", configuration: loadConfiguration) { _ in
        let parsed = try! JSONSerialization.jsonObject(with: data)
        precondition(((parsed as? [String: Any])?["flags"] as? [String: Any])?.count == 10_000)
        blackHole(parsed)
    }
}
