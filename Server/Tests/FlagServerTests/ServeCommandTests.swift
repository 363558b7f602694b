import AsyncHTTPClient
import FlagEvaluation
import Foundation
import NIOHTTP1
import Testing

/// `flag-server serve` options that change what the server answers, run as a process.
struct ServeCommandTests {
    static let split = #"""
        {"flags": {"rollout": {"state": "ENABLED", "variants": {"a": "a", "b": "b", "c": "c"}, "defaultVariant": "a",
          "targeting": {"fractional": [["a", 34], ["b", 33], ["c", 33]]}}}}
        """#
    static let keys = (0..<60).map { "user-\($0)" }

    /// The variant each of ``keys`` gets over OFREP, `request` sending to one server.
    static func variants(
        _ request: (HTTPMethod, String, String, String?) async throws -> (Int, String), adminToken: String
    ) async throws -> [String] {
        let imported = try await request(.POST, "/admin/v1/environments/production/import", adminToken, split)
        #expect(imported.0 == 200, "\(imported.1)")
        let created = try await request(
            .POST, "/admin/v1/tokens", adminToken, #"{"name": "app", "environment": "production", "role": "client"}"#)
        let client = try #require(try JSONValue(parsing: created.1)["token"]?.stringValue, "\(created.1)")
        var variants: [String] = []
        for key in keys {
            let reply = try await request(.POST, "/ofrep/v1/evaluate/flags/rollout", client, #"{"context": {"targetingKey": "\#(key)"}}"#)
            variants.append(try JSONValue(parsing: reply.1)["variant"]?.stringValue ?? "?")
        }
        return variants
    }

    /// `--fractional-bucketing legacy` serves flagd's legacy buckets, as `FlagServer.start` does.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path)))
    func theFractionalBucketingOptionChoosesTheAlgorithm() async throws {
        var expected: [FractionalBucketing: [String]] = [:]
        for bucketing in [FractionalBucketing.current, .legacy] {
            expected[bucketing] = try await TestServer.with(fractionalBucketing: bucketing) { server in
                try await Self.variants({ method, path, token, body in
                    let reply = try await server.request(method, path, token: token, body: body)
                    return (reply.status, reply.body)
                }, adminToken: server.adminToken)
            }
        }
        #expect(expected[.current] != expected[.legacy], "the sample must tell the algorithms apart")
        let process = try await FlagServerProcess(
            dataDirectory: TemporaryDirectory().path, ["--fractional-bucketing", "legacy"])
        defer {
            process.process.terminate()
            process.process.waitUntilExit()
        }
        let token = try #require(process.firstToken)
        let served = try await Self.variants({ method, path, token, body in
            try await process.request(method, path, token: token, body: body)
        }, adminToken: token)
        #expect(served == expected[.legacy])
        try await process.client.shutdown()
    }
}
