import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

struct OFREPTests {
    @Test
    func singleEvaluationServesTheVariantWithReasonAndMetadata() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", targeting: #"{"if": [{"==": [{"var": "plan"}, "free"]}, "off", null]}"#)
            let described = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"owner": "payments", "custom": {"ticket": "FF-1", "rollout": 2}}}"#)
            #expect(described.status == 200)
            let token = try await server.token(.client, environment: "production")
            let premium = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {"targetingKey": "u1", "plan": "premium"}}"#)
            #expect(premium.status == 200)
            #expect(premium.json?["value"] == true)
            #expect(premium.json?["variant"] == "on")
            #expect(premium.json?["reason"] == "DEFAULT")
            // The flag's own flagd metadata, as flagd serves it; registry fields stay in the admin API.
            #expect(premium.json?["metadata"] == ["ticket": "FF-1", "rollout": 2])
            let free = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {"targetingKey": "u1", "plan": "free"}}"#)
            #expect(free.json?["value"] == false)
            #expect(free.json?["reason"] == "TARGETING_MATCH")
        }
    }

    @Test
    func anOffFlagIsDisabledAndDefersToTheCodeDefault() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", enabled: false)
            let token = try await server.token(.client, environment: "production")
            let reply = try await server.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {}}"#)
            #expect(reply.status == 200)
            #expect(reply.json?["reason"] == "DISABLED")
            #expect(reply.json?["value"] == nil)
            #expect(reply.json?["variant"] == nil)
            #expect(reply.json?["metadata"] == nil)
        }
    }

    @Test
    func errorsHaveOFREPCodesAndStatuses() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            let missing = try await server.request(.POST, "/ofrep/v1/evaluate/flags/nope", token: token, body: #"{"context": {}}"#)
            #expect(missing.status == 404)
            #expect(missing.json?["errorCode"] == "FLAG_NOT_FOUND")
            #expect(missing.json?["key"] == "nope")
            let malformed = try await server.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": "#)
            #expect(malformed.status == 400)
            #expect(malformed.json?["errorCode"] == "PARSE_ERROR")
            let badContext = try await server.request(.POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": [1]}"#)
            #expect(badContext.status == 400)
            #expect(badContext.json?["errorCode"] == "INVALID_CONTEXT")
            #expect(badContext.json?["errorDetails"]?.stringValue?.contains("\"context\"") == true)
            let badKey = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/checkout", token: token, body: #"{"context": {"targetingKey": 7}}"#)
            #expect(badKey.status == 400)
            #expect(badKey.json?["errorDetails"]?.stringValue?.contains("context.targetingKey") == true)
        }
    }

    @Test
    func anOversizedContextIsRefusedWith413() async throws {
        try await TestServer.with(limits: ServerLimits(maximumEvaluationBytes: 100)) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            let big = #"{"context": {"targetingKey": "\#(String(repeating: "x", count: 200))"}}"#
            let reply = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: big)
            #expect(reply.status == 413)
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("100 bytes") == true)
        }
    }

    @Test
    func bulkEvaluationCarriesAContextETagAndAnswers304() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            try await server.booleanFlag("search", enabled: false)
            let token = try await server.token(.client, environment: "production")
            let body = #"{"context": {"targetingKey": "u1"}}"#
            let first = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: body)
            #expect(first.status == 200)
            let flags = first.json?["flags"]?.arrayValue ?? []
            #expect(flags.map { $0["key"] } == ["checkout", "search"])
            #expect(flags.first?["value"] == true)
            #expect(first.json?["eventStreams"]?.arrayValue?.first?["type"] == "sse")
            #expect(first.json?["eventStreams"]?.arrayValue?.first?["endpoint"]?["requestUri"] == "/ofrep/v1/events")
            let etag = try #require(first.header("ETag"))

            let cached = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: body, headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)

            let otherContext = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {"targetingKey": "u2"}}"#,
                headers: [("If-None-Match", etag)])
            #expect(otherContext.status == 200)
            #expect(otherContext.header("ETag") != etag)

            try await server.booleanFlag("search", enabled: true)
            let changed = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: body, headers: [("If-None-Match", etag)])
            #expect(changed.status == 200)
            #expect(changed.header("ETag") != etag)
        }
    }

    @Test
    func tokensAreCheckedForPresenceEnvironmentAndRevocation() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let none = try await server.request(.POST, "/ofrep/v1/evaluate/flags", body: #"{"context": {}}"#)
            #expect(none.status == 401)
            #expect(none.json?["error"]?["message"]?.stringValue?.contains("Bearer") == true)
            let forged = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: "ffs_000000000000_" + String(repeating: "0", count: 64),
                body: #"{"context": {}}"#)
            #expect(forged.status == 401)

            let staging = try await server.token(.client, environment: "staging")
            let flagd = try await server.request(.GET, "/flagd/v1/flags.json", token: staging)
            #expect(flagd.status == 403)
            let admin = try await server.request(.GET, "/admin/v1/environments/production/flags", token: staging)
            #expect(admin.status == 403)

            let production = try await server.token(.client, environment: "production")
            let id = String(production.split(separator: "_")[1])
            let revoked = try await server.request(.DELETE, "/admin/v1/tokens/\(id)", token: server.adminToken)
            #expect(revoked.status == 204)
            let after = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: production, body: #"{"context": {}}"#)
            #expect(after.status == 401)
            #expect(after.json?["error"]?["message"] == .string("token \"\(id)\" was revoked"))
        }
    }

    @Test
    func corsAllowsIfNoneMatchAndExposesETag() async throws {
        try await TestServer.with { server in
            let preflight = try await server.request(
                .OPTIONS, "/ofrep/v1/evaluate/flags",
                headers: [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")])
            #expect(preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("if-none-match") == true)
            let token = try await server.token(.client, environment: "production")
            let reply = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#, headers: [("Origin", "https://app.example")])
            #expect(reply.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
        }
    }

    @Test
    func theRateLimitAnswers429WithRetryAfter() async throws {
        let clock = ManualSeconds()
        let limiter = RateLimiter(perSecond: 1, burst: 2, now: { clock.value })
        try await TestServer.with(rateLimiter: limiter) { server in
            let token = try await server.token(.client, environment: "production")
            let first = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            let second = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            let third = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            #expect([first.status, second.status, third.status] == [200, 200, 429] as [Int])
            #expect(third.header("Retry-After") == "1")
            clock.advance(by: 1)
            let later = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            #expect(later.status == 200)
        }
    }

    /// The OFREP specification in the conformance material (``ConformanceMaterial``).
    static let specification = ConformanceMaterial.current.url("ofrep/service/openapi.yaml")

    /// Real answers (a targeted value, a code default, an error, bulk, 304) and events, checked
    /// against the OFREP specification's schemas by `scripts/tools/validate_ofrep.py`.
    @Test(ConformanceMaterial.required("ofrep/service/openapi.yaml"))
    func answersAndEventsConformToTheOFREPSpecification() async throws {
        ConformanceMaterial.current.requirePresent("ofrep/service/openapi.yaml")
        let directory = TemporaryDirectory().path
        try await TestServer.with { server in
            try await server.booleanFlag("checkout", targeting: #"{"if": [{"==": [{"var": "plan"}, "free"]}, "off", null]}"#)
            try await server.booleanFlag("search", enabled: false)
            let token = try await server.token(.client, environment: "production")
            var responses: [JSONValue] = []
            func record(_ template: String, _ path: String, body: String, headers: [(String, String)] = []) async throws -> TestServer.Reply {
                let reply = try await server.request(.POST, path, token: token, body: body, headers: headers)
                responses.append([
                    "path": .string(template), "method": "post", "status": .int(reply.status),
                    "body": reply.body.isEmpty ? .null : (reply.json ?? .string(reply.body)),
                ])
                return reply
            }
            let single = "/ofrep/v1/evaluate/flags/{key}"
            _ = try await record(single, "/ofrep/v1/evaluate/flags/checkout", body: #"{"context": {"targetingKey": "u1", "plan": "free"}}"#)
            _ = try await record(single, "/ofrep/v1/evaluate/flags/search", body: #"{"context": {"targetingKey": "u1"}}"#)
            _ = try await record(single, "/ofrep/v1/evaluate/flags/ghost", body: #"{"context": {}}"#)
            _ = try await record(single, "/ofrep/v1/evaluate/flags/checkout", body: #"{"context": [1]}"#)
            let bulk = try await record("/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", body: #"{"context": {"targetingKey": "u1"}}"#)
            _ = try await record(
                "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", body: #"{"context": {"targetingKey": "u1"}}"#,
                headers: [("If-None-Match", bulk.header("ETag") ?? "")])

            var stream = EventStreamReader(try await server.openStream(token: token, lastEventID: "1"))
            try await server.booleanFlag("search", enabled: true)
            var events: [JSONValue] = []
            while events.count < 2, let block = try await stream.nextBlock() {
                var event: [String: JSONValue] = [:]
                for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                    let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2 else { continue }
                    event[parts[0]] = parts[0] == "retry" ? .int(Int(parts[1]) ?? -1) : .string(parts[1])
                }
                if event["data"] != nil { events.append(.object(event)) }
            }
            #expect(events.count == 2)
            let recorded: JSONValue = ["responses": .array(responses), "events": .array(events)]
            try recorded.serialized().write(toFile: directory + "/ofrep.json", atomically: true, encoding: .utf8)
        }
        let (status, text) = try Self.validateOFREP([Self.specification.path, directory + "/ofrep.json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("checked 6 responses and 2 events, 0 problems"), "\(text)")
    }

    static func validateOFREP(_ arguments: [String]) throws -> (Int32, String) {
        try runPythonScript("validate_ofrep.py", arguments)
    }
}
