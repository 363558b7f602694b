import FlagEvaluation
import Foundation
import NIOHTTP1
import Testing

/// A server started with `--fractional-bucketing legacy` or `v3` serves that bucketing over OFREP;
/// the admin API's (and the console's) preview and evaluation must show the same variants, not
/// those of the default bucketing.
struct PreviewBucketingTests {
    @Test(arguments: [FractionalBucketing.current, .legacy, .v3])
    func previewAndEvaluationShowWhatTheServerServes(bucketing: FractionalBucketing) async throws {
        try await TestServer.with(fractionalBucketing: bucketing) { server in
            let served = try await ServeCommandTests.variants({ method, path, token, body in
                let reply = try await server.request(method, path, token: token, body: body)
                return (reply.status, reply.body)
            }, adminToken: server.adminToken)
            let keys = ServeCommandTests.keys

            let keyList = keys.map { "\"\($0)\"" }.joined(separator: ", ")
            let preview = try await server.request(
                .POST, "/admin/v1/environments/production/flags/rollout/preview", token: server.adminToken,
                body: #"{"targetingKeys": [\#(keyList)]}"#)
            #expect(preview.status == 200, "\(preview.body)")
            let assignments = try #require(preview.json?["assignments"]?.arrayValue, "\(preview.body)")
            #expect(assignments.map { $0["targetingKey"]?.stringValue ?? "?" } == keys)
            #expect(assignments.map { $0["variant"]?.stringValue ?? "?" } == served, "preview with \(bucketing) bucketing")

            var evaluated: [String] = []
            for key in keys.prefix(20) {
                let reply = try await server.request(
                    .POST, "/admin/v1/environments/production/evaluate", token: server.adminToken,
                    body: #"{"context": {"targetingKey": "\#(key)"}}"#)
                let flags = try #require(reply.json?["flags"]?.arrayValue, "\(reply.body)")
                let rollout = flags.first { $0["key"]?.stringValue == "rollout" }
                evaluated.append(rollout?["variant"]?.stringValue ?? "?")
            }
            #expect(evaluated == Array(served.prefix(20)), "evaluation with \(bucketing) bucketing")
        }
    }

    /// The sample tells the three algorithms apart, so the test above would notice a preview that
    /// ignores the server's bucketing.
    @Test func theSampleTellsTheBucketingsApart() {
        let rule: JSONValue = ["fractional": [["a", 34], ["b", 33], ["c", 33]]]
        var byBucketing: [FractionalBucketing: [String]] = [:]
        for bucketing in [FractionalBucketing.current, .legacy, .v3] {
            let (definitions, errors) = FlagDefinitions.load([
                FlagSource(
                    name: "split",
                    json: #"{"flags": {"rollout": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c"}, "defaultVariant": "a", "targeting": \#(rule.serialized())}}}"#)
            ])
            #expect(errors.isEmpty)
            let evaluator = FlagEvaluator(definitions: definitions, bucketing: bucketing)
            byBucketing[bucketing] = ServeCommandTests.keys.map { key in
                evaluator.evaluate(
                    flag: "rollout", type: .string, default: "?", context: EvaluationContext(targetingKey: key), now: Date()
                ).variant ?? "?"
            }
        }
        #expect(byBucketing[.current] != byBucketing[.legacy])
        #expect(byBucketing[.current] != byBucketing[.v3])
        #expect(byBucketing[.legacy] != byBucketing[.v3])
    }
}
