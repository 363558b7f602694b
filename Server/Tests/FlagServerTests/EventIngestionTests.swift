import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `POST /ofrep/v1/ingestion` against a recording event store: what reaches the store, what is
/// refused and how, shedding, group commits a client cannot split, and delivery beside it.
struct EventIngestionTests {
    /// Milliseconds since 1970 now (the server's clock is the real one here).
    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A version 1 batch body: `exposures` exposures of `checkout`, one summary per entry of
    /// `summaries`, `tracked` tracked events; `edit` changes it before it is written.
    static func body(
        id: String, exposures: Int = 1, summaries: [(flag: String, variant: String, count: Int)] = [("checkout", "on", 18)],
        tracked: Int = 1, edit: (inout [String: JSONValue]) -> Void = { _ in }
    ) -> String {
        let time = JSONValue.int(Int(nowMilliseconds - 60_000))
        var batch: [String: JSONValue] = [
            "version": 1, "batchId": .string(id),
            "source": ["appVersion": "4.2", "buildConfiguration": "release", "platform": "iOS"],
            "dropped": ["exposures": 0, "summaries": 0, "tracked": 12],
            "exposures": .array((0..<exposures).map { index in
                [
                    "flag": "checkout", "variant": "on", "value": true, "reason": "SPLIT", "revision": "\"r42\"",
                    "unit": .string("user-\(index)"), "time": time,
                ]
            }),
            "summaries": .array(summaries.map { summary in
                [
                    "flag": .string(summary.flag), "variant": .string(summary.variant), "reason": "SPLIT",
                    "count": .int(summary.count), "start": time, "end": time,
                ]
            }),
            "events": .array((0..<tracked).map { _ in
                [
                    "name": "checkout", "value": 42.5, "attributes": ["plan": "pro"], "unit": "user-0",
                    "variants": ["checkout": "on"], "time": time,
                ]
            }),
        ]
        edit(&batch)
        return JSONValue.object(batch).serialized()
    }

    static func ingest(
        _ server: TestServer, _ body: String, token: String?, key: String? = nil
    ) async throws -> TestServer.Reply {
        try await server.request(.POST, "/ofrep/v1/ingestion", token: token, body: body, headers: key.map { [("Idempotency-Key", $0)] } ?? [])
    }

    @Test
    func anAcceptedBatchReachesTheStoreWholeWithItsEnvironment() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let reply = try await Self.ingest(server, Self.body(id: "batch-1", exposures: 2), token: token, key: "batch-1")
            #expect(reply.status == 202, "\(reply.body)")
            #expect(reply.json == ["accepted": 4, "duplicate": false])
            let stored = await store.stored
            #expect(stored.count == 1)
            let batch = try #require(stored.first)
            #expect(batch.id == "batch-1")
            #expect(batch.environment == "production")
            #expect(batch.source == .init(appVersion: "4.2", buildConfiguration: "release", platform: "iOS"))
            #expect(batch.dropped == .init(exposures: 0, summaries: 0, tracked: 12))
            #expect(batch.exposures.map(\.unit) == ["user-0", "user-1"])
            #expect(batch.exposures.first?.value == true)
            #expect(batch.exposures.first?.revision == "\"r42\"")
            #expect(batch.summaries == [.init(flag: "checkout", variant: "on", reason: "SPLIT", count: 18, start: batch.summaries[0].start, end: batch.summaries[0].end)])
            #expect(batch.tracked.first?.value == 42.5)
            #expect(batch.tracked.first?.attributes == ["plan": "pro"])
            #expect(batch.tracked.first?.variants == ["checkout": "on"])
            #expect(abs(batch.receivedAt - Self.nowMilliseconds) < 600_000)
        }
    }

    @Test
    func aRepeatedBatchIsAcceptedAsADuplicateAndStoredOnce() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let body = Self.body(id: "again")
            #expect(try await Self.ingest(server, body, token: token).json?["duplicate"] == false)
            let second = try await Self.ingest(server, body, token: token, key: "again")
            #expect(second.status == 202)
            #expect(second.json?["duplicate"] == true)
            #expect(await store.stored.count == 1)
            // The same id from another environment is another batch.
            let staging = try await server.token(.client, environment: "staging")
            #expect(try await Self.ingest(server, body, token: staging).json?["duplicate"] == false)
            #expect(await store.stored.map(\.environment) == ["production", "staging"])
        }
    }

    @Test
    func tooLargeBodiesAndTooManyEventsAre413AndReachNoStore() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumBatchBytes = 4096
        options.maximumEvents = 3
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            let large = Self.body(id: "large") { $0["padding"] = .string(String(repeating: "x", count: 5000)) }
            let tooLarge = try await Self.ingest(server, large, token: token)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.json?["error"]?["code"] == "too_large")
            #expect(tooLarge.json?["error"]?["message"]?.stringValue?.contains("4096 bytes") == true)
            let many = try await Self.ingest(server, Self.body(id: "many", exposures: 2, tracked: 1), token: token)
            #expect(many.status == 413)
            #expect(many.json?["error"]?["message"]?.stringValue?.contains("4 events") == true)
            #expect(try await Self.ingest(server, Self.body(id: "fits", exposures: 1, tracked: 1), token: token).status == 202)
            #expect(await store.calls.map { $0.map(\.id) } == [["fits"]])
        }
    }

    @Test(arguments: [
        ("exposures[1].flag", { @Sendable (batch: inout [String: JSONValue]) in
            batch["exposures"] = [["flag": "a", "reason": "SPLIT", "time": .int(Int(EventIngestionTests.nowMilliseconds))],
                                  ["flag": 7, "reason": "SPLIT", "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("events[0].name", { batch in batch["events"] = [["name": .string(String(repeating: "n", count: 257)), "time": 1]] }),
        ("version", { batch in batch["version"] = 2 }),
        ("batchId", { batch in batch["batchId"] = .string(String(repeating: "i", count: 65)) }),
        ("batchId", { batch in batch["batchId"] = "" }),
        ("summaries[0].start", { batch in batch["summaries"] = [["flag": "a", "reason": "SPLIT", "count": 1, "start": 1.5, "end": 2]] }),
        ("exposures[0].time", { batch in batch["exposures"] = [["flag": "a", "reason": "SPLIT", "time": 1]] }),
        ("summaries[0].count", { batch in
            let now = JSONValue.int(Int(EventIngestionTests.nowMilliseconds))
            batch["summaries"] = [["flag": "a", "reason": "SPLIT", "count": -1, "start": now, "end": now]]
        }),
        ("events[0].attributes.note", { batch in
            batch["events"] = [["name": "n", "attributes": ["note": .string(String(repeating: "a", count: 2000))],
                                "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("events[0].attributes.deep", { batch in
            batch["events"] = [["name": "n", "attributes": ["deep": [[[[[[[[[[1]]]]]]]]]]],
                                "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("events[0].attributes", { batch in
            let many = Dictionary(uniqueKeysWithValues: (0..<33).map { ("a\($0)", JSONValue.int($0)) })
            batch["events"] = [["name": "n", "attributes": .object(many), "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("events[0].value", { batch in
            batch["events"] = [["name": "n", "value": "1", "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("exposures[0].unit", { batch in
            batch["exposures"] = [["flag": "a", "reason": "SPLIT", "unit": .string(String(repeating: "u", count: 257)),
                                   "time": .int(Int(EventIngestionTests.nowMilliseconds))]]
        }),
        ("source", { batch in batch["source"] = nil }),
    ] as [(String, @Sendable (inout [String: JSONValue]) -> Void)])
    func anInvalidMemberIs422NamingItsPath(field: String, edit: @Sendable (inout [String: JSONValue]) -> Void) async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let reply = try await Self.ingest(server, Self.body(id: "bad", edit: edit), token: token)
            #expect(reply.status == 422, "\(reply.body)")
            #expect(reply.json?["error"]?["code"] == "invalid")
            let fields = reply.json?["error"]?["problems"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
            #expect(fields.contains(field), "\(reply.body)")
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains(field) == true)
            #expect(await store.calls.isEmpty)
        }
    }

    @Test
    func aBodyThatIsNotJSONIs400() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            for body in ["{\"version\": 1", "not json", #"{"version": 1, "version": 1}"#] {
                let reply = try await Self.ingest(server, body, token: token)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "(body)")
            }
            let array = try await Self.ingest(server, "[]", token: token)
            #expect(array.status == 422)
            #expect(await store.calls.isEmpty)
        }
    }

    @Test
    func tokensMustBeDeliveryTokensOfOneEnvironment() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let body = Self.body(id: "tokens")
            let missing = try await Self.ingest(server, body, token: nil)
            #expect(missing.status == 401)
            #expect(try await Self.ingest(server, body, token: "ffs_nope_nope").status == 401)
            // The first admin token (every environment), and an admin token of one environment.
            let allEnvironments = try await Self.ingest(server, body, token: server.adminToken)
            #expect(allEnvironments.status == 403)
            let admin = try await server.token(.admin, environment: "production")
            let oneEnvironment = try await Self.ingest(server, body, token: admin)
            #expect(oneEnvironment.status == 403)
            #expect(oneEnvironment.json?["error"]?["message"]?.stringValue?.contains("admin token") == true)
            let serverToken = try await server.token(.server, environment: "production")
            #expect(try await Self.ingest(server, body, token: serverToken).status == 202)
            #expect(await store.calls.count == 1)
        }
    }

    @Test
    func anIdempotencyKeyOtherThanTheBatchIDIsRefused() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let reply = try await Self.ingest(server, Self.body(id: "batch-a"), token: token, key: "batch-b")
            #expect(reply.status == 422)
            #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "batchId")
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("Idempotency-Key") == true)
            #expect(await store.calls.isEmpty)
        }
    }

    @Test
    func aStoreFailureIs503AndAcknowledgesNothing() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            await store.fail(with: .unavailable("connection refused to 10.0.0.5"))
            let body = Self.body(id: "retried")
            let failed = try await Self.ingest(server, body, token: token)
            #expect(failed.status == 503)
            #expect(failed.header("Retry-After") == "5")
            // The database's words stay in the log.
            #expect(failed.json?["error"]?["message"]?.stringValue?.contains("10.0.0.5") == false)
            #expect(await store.stored.isEmpty)
            await store.fail(with: nil)
            let retried = try await Self.ingest(server, body, token: token)
            #expect(retried.status == 202)
            #expect(retried.json?["duplicate"] == false)
            #expect(await store.stored.map(\.id) == ["retried"])
        }
    }

    /// A store that holds its first call: the queue fills, the next batch is shed at once without
    /// reaching the store, and delivery answers meanwhile.
    @Test
    func aFullQueueShedsAtOnceAndDeliveryStillAnswers() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumQueuedEvents = 3
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            await store.hold()
            let first = Task { try await Self.ingest(server, Self.body(id: "held"), token: token) }
            await store.waitForCalls(1)
            let shed = try await Self.ingest(server, Self.body(id: "shed"), token: token)
            #expect(shed.status == 503)
            #expect(shed.header("Retry-After") == "5")
            #expect(shed.json?["error"]?["message"]?.stringValue?.contains("events") == true)
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {"targetingKey": "u1"}}"#)
            #expect(bulk.status == 200)
            #expect(bulk.json?["flags"]?.arrayValue?.first?["value"] == true)
            #expect(await store.calls.count == 1)
            await store.release()
            #expect(try await first.value.status == 202)
            // Room again: the shed batch goes now.
            #expect(try await Self.ingest(server, Self.body(id: "shed"), token: token).status == 202)
            let metrics = try await server.request(.GET, "/metrics").body
            #expect(metrics.contains("flag_server_event_batches_shed_total 1"))
        }
    }

    @Test
    func bodiesBeyondTheByteBudgetAreShedBeforeTheyAreRead() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        let body = Self.body(id: "held")
        options.maximumQueuedBytes = body.utf8.count + 100
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            let token = try await server.token(.client, environment: "production")
            await store.hold()
            let first = Task { try await Self.ingest(server, body, token: token) }
            await store.waitForCalls(1)
            let shed = try await Self.ingest(server, Self.body(id: "other"), token: token)
            #expect(shed.status == 503)
            #expect(shed.json?["error"]?["message"]?.stringValue?.contains("bytes") == true)
            await store.release()
            #expect(try await first.value.status == 202)
            #expect(await store.calls.count == 1)
        }
    }

    /// Batches queued together are stored in one call, and a client that hangs up while its group
    /// commits changes nothing: the group is stored whole, or (the store failing) not at all.
    @Test(arguments: [false, true])
    func aClientThatHangsUpDoesNotSplitItsGroup(storeFails: Bool) async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            await store.hold()
            // The first batch is being stored (held); two more queue behind it and form one group.
            let first = Task { try await Self.ingest(server, Self.body(id: "first"), token: token) }
            await store.waitForCalls(1)
            let body = Self.body(id: "hangs-up", exposures: 3)
            let connection = try RawConnection(port: server.port)
            try connection.send(
                "POST /ofrep/v1/ingestion HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            let stays = Task { try await Self.ingest(server, Self.body(id: "stays"), token: token) }
            // Both are queued once their events count against the queue.
            while server.server.ingestion?.queue.load.events != 3 + 5 + 3 { await Task.yield() }
            connection.disconnect()
            if storeFails { await store.fail(with: .database("disk full")) }
            await store.release()
            _ = try await first.value
            let answered = try await stays.value
            let calls = await store.calls.map { $0.map(\.id) }
            #expect(calls.count == 2)
            #expect(calls.first == ["first"])
            #expect(Set(calls.last ?? []) == ["hangs-up", "stays"])
            let stored = await store.stored
            if storeFails {
                #expect(answered.status == 503)
                #expect(stored.isEmpty)
            } else {
                #expect(answered.status == 202)
                #expect(Set(stored.map(\.id)) == ["first", "hangs-up", "stays"])
                #expect(stored.first { $0.id == "hangs-up" }?.exposures.count == 3)
            }
        }
    }

    @Test
    func theBulkEvaluationAdvertisesTheEndpointOnlyWithAnEventStore() async throws {
        try await TestServer.with(eventStore: RecordingEventStore()) { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}")
            #expect(bulk.json?["eventIngestion"] == [
                "endpoint": ["requestUri": "/ofrep/v1/ingestion"], "maxBatchBytes": 1_048_576, "maxEvents": 2000,
            ])
            #expect(bulk.json?["eventStreams"]?.arrayValue?.count == 1)
            #expect(bulk.json?["flags"]?.arrayValue?.count == 1)
        }
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}")
            #expect(bulk.status == 200)
            #expect(bulk.json?["eventIngestion"] == nil)
            #expect(try await Self.ingest(server, Self.body(id: "nowhere"), token: token).status == 404)
        }
    }

    @Test
    func metricsCountEventsRefusalsAndEvaluationsWithBoundedSeries() async throws {
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumEvaluationSeries = 2
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            for flag in ["checkout", "search", "banner"] { try await server.booleanFlag(flag) }
            let token = try await server.token(.client, environment: "production")
            let summaries = [
                (flag: "checkout", variant: "on", count: 18), ("checkout", "off", 2), ("search", "on", 5), ("ghost", "on", 7),
            ]
            // `ghost` is no flag of the environment: under __other__. Of the known pairs two get
            // series (the order within a batch is the dictionary's), the third goes under __other__ too.
            #expect(try await Self.ingest(server, Self.body(id: "m1", exposures: 2, summaries: summaries, tracked: 1), token: token).status == 202)
            #expect(try await Self.ingest(server, Self.body(id: "m1"), token: token).status == 202)
            #expect(try await Self.ingest(server, "nope", token: token).status == 400)
            #expect(try await Self.ingest(server, Self.body(id: "bad") { $0["version"] = 3 }, token: token).status == 422)
            let text = try await server.request(.GET, "/metrics").body
            #expect(text.contains(#"flag_server_events_ingested_total{kind="exposure"} 2"#), "\(text)")
            #expect(text.contains(#"flag_server_events_ingested_total{kind="summary"} 4"#))
            #expect(text.contains(#"flag_server_events_ingested_total{kind="tracked"} 1"#))
            #expect(text.contains(#"flag_server_event_batches_total{outcome="stored"} 1"#))
            #expect(text.contains(#"flag_server_event_batches_total{outcome="duplicate"} 1"#))
            #expect(text.contains(#"flag_server_event_batches_refused_total{reason="malformed"} 1"#))
            #expect(text.contains(#"flag_server_event_batches_refused_total{reason="invalid"} 1"#))
            #expect(text.contains("flag_server_event_ingest_duration_seconds_count 2"))
            let evaluations = text.split(separator: "\n").filter { $0.hasPrefix("flag_evaluations_total{") }
            #expect(evaluations.count == 3, "\(evaluations)")
            let total = evaluations.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +)
            #expect(total == 18 + 2 + 5 + 7)
            #expect(evaluations.contains { $0.contains(#"environment="production",flag="__other__",variant="__other__""#) })
            #expect(!evaluations.contains { $0.contains("ghost") })
        }
    }

    /// A running server sweeps expired events at start (and then every interval).
    @Test
    func theServerSweepsExpiredEventsAtStart() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store, eventRetention: EventRetention(rawDays: 2, hourlyDays: 1)) { _ in
            await store.waitForDeletion()
            let deletion = try #require(await store.deletions.first)
            #expect(deletion.hourlyBefore - deletion.rawBefore == 86_400_000)
            #expect(abs(Self.nowMilliseconds - 2 * 86_400_000 - deletion.rawBefore) < 600_000)
        }
    }

    @Test
    func theRequestsAndAnswersMatchTheOpenAPIDocument() async throws {
        let directory = TemporaryDirectory().path
        let store = RecordingEventStore()
        var options = EventIngestionOptions()
        options.maximumEvents = 5
        try await TestServer.with(eventStore: store, eventIngestion: options) { server in
            var r = OpenAPIDocumentTests.Recorder()
            let document = try await server.request(.GET, "/openapi.json")
            try document.body.write(toFile: directory + "/openapi.json", atomically: true, encoding: .utf8)
            let token = try await server.token(.client, environment: "production")
            let path = "/ofrep/v1/ingestion"
            _ = try await r.call(server, .POST, path, path, token: token, body: Self.body(id: "doc"), headers: [("Idempotency-Key", "doc")])
            _ = try await r.call(server, .POST, path, path, token: token, body: Self.body(id: "doc"))
            _ = try await r.call(server, .POST, path, path, token: token, body: "{")
            _ = try await r.call(server, .POST, path, path, token: token, body: Self.body(id: "big", exposures: 6))
            _ = try await r.call(server, .POST, path, path, token: token, body: Self.body(id: "v") { $0["version"] = 2 })
            _ = try await r.call(server, .POST, path, path, token: nil, body: Self.body(id: "anonymous"))
            _ = try await r.call(server, .POST, path, path, token: server.adminToken, body: Self.body(id: "admin"))
            await store.fail(with: .unavailable("down"))
            _ = try await r.call(server, .POST, path, path, token: token, body: Self.body(id: "down"))
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: token, body: "{}")
            try JSONValue.array(r.entries).serialized().write(toFile: directory + "/responses.json", atomically: true, encoding: .utf8)
        }
        let (status, text) = try OpenAPIDocumentTests.validate([directory + "/openapi.json", directory + "/responses.json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains(" 0 problems"), "\(text)")
    }
}
