import Foundation
import Testing

/// `flags stats winsorize`, running the built tool: the whole output of a fixed cap, the threshold
/// of a percentile cap, and refusals naming the field.
struct StatsWinsorizeCommandTests {
    let directory: URL

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func input(_ json: String) throws -> URL {
        let file = directory.appendingPathComponent("input.json")
        try Data(json.utf8).write(to: file)
        return file
    }

    @Test func aFixedCapWritesTheCappedValuesInInputOrder() throws {
        let result = try FlagsTool.run(["stats", "winsorize", try input(#"{"value": 10, "values": [3, 12.5, 10, 0, 40]}"#).path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput == """
                {
                  "capped" : 2,
                  "threshold" : 10,
                  "values" : [
                    3,
                    10,
                    10,
                    0,
                    10
                  ]
                }

                """)
    }

    @Test func aPercentileCapUsesTheValuesOwnPercentile() throws {
        // np.percentile(range(1, 41), 95) == 38.05: 39 and 40 are capped.
        let values = (1...40).map(String.init).joined(separator: ", ")
        let result = try FlagsTool.run(["stats", "winsorize", try input(#"{"percentile": 0.95, "values": [\#(values)]}"#).path])
        #expect(result.status == 0, "\(result.standardError)")
        let output = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as! [String: Any]
        #expect(abs((output["threshold"] as! Double) - 38.05) < 1e-12)
        #expect(output["capped"] as? Int == 2)
        #expect((output["values"] as? [Double])?.prefix(38) == (1...38).map(Double.init)[...])
    }

    @Test(arguments: [
        (#"{"percentile": 0.5, "values": [1, 2]}"#, "percentile"),
        (#"{"value": 0, "values": [1, 2]}"#, "value"),
        (#"{"value": 5, "percentile": 0.9, "values": [1, 2]}"#, "percentile"),
        (#"{"percentile": 0.9, "values": []}"#, "values"),
    ])
    func badInputIsRefusedNamingTheField(_ json: String, _ field: String) throws {
        let result = try FlagsTool.run(["stats", "winsorize", try input(json).path])
        #expect(result.status == 2, "\(json): \(result.standardOutput)")
        #expect(result.standardError.contains(field), "\(json): \(result.standardError)")
        #expect(result.standardOutput.isEmpty)
    }
}
