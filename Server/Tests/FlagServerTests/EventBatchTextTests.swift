import FlagEvaluation
@testable import FlagServer
import Foundation
import HTTPTypes
import NIOHTTP1
import Testing

/// Control characters in a batch's ids, names and keys are refused where the batch enters (400,
/// naming the member and its index), a body sent with a `Content-Encoding` the server does not
/// read is refused 415, and the SQLite event store stores a batch whose id holds a NUL whole.
struct EventBatchTextTests {
    typealias Parts = EventIngestionPartsTests

    /// `{"version": 1, …}` with one exposure, one summary and two tracked events, as JSON text
    /// with `marker` (`@`) replaced by `character` in the member `edit` names.
    static func batch(_ member: String, _ character: String) -> String {
        func text(_ name: String, _ plain: String) -> String {
            let value = name == member ? plain.replacingOccurrences(of: "@", with: character) : plain.replacingOccurrences(of: "@", with: "")
            return JSONValue.string(value).serialized()
        }
        let time = Parts.now
        return """
            {"version": 1, "batchId": \(text("batchId", "b@1")),
             "source": {"appVersion": \(text("source.appVersion", "4.2@")), "buildConfiguration": "release", "platform": "iOS"},
             "exposures": [{"flag": \(text("exposures[0].flag", "check@out")), "variant": \(text("exposures[0].variant", "o@n")),
                            "reason": \(text("exposures[0].reason", "SPLIT@")), "unit": \(text("exposures[0].unit", "user@-1")), "time": \(time)}],
             "summaries": [{"flag": \(text("summaries[0].flag", "@checkout")), "variant": "on", "reason": "SPLIT", "count": 1,
                            "start": \(time), "end": \(time)}],
             "events": [{"name": "ok", "time": \(time)},
                        {"name": \(text("events[1].name", "pur@chase")), "unit": \(text("events[1].unit", "u@")),
                         "attributes": {\(text("events[1].attributes.key", "pl@an")): "pro", "note": "two\\nlines"},
                         "variants": {\(text("events[1].variants.key", "check@out")): \(text("events[1].variants.checkout", "o@n"))},
                         "time": \(time)}]}
            """
    }

    static let members = [
        "batchId", "source.appVersion", "exposures[0].flag", "exposures[0].variant", "exposures[0].reason", "exposures[0].unit",
        "summaries[0].flag", "events[1].name", "events[1].unit", "events[1].attributes.key", "events[1].variants.key",
        "events[1].variants.checkout",
    ]

    @Test
    func aBatchWithoutControlCharactersDecodes() throws {
        let batch = try Parts.decode(Self.batch("", ""))
        #expect(batch.id == "b1")
        #expect(batch.tracked[1].attributes == ["plan": "pro", "note": "two\nlines"])
        #expect(batch.tracked[1].variants == ["checkout": "on"])
    }

    /// NUL, a C0 control, DEL and a C1 control, in every id, name and key: 400 naming the member
    /// with its index (a key is named by its escaped text).
    @Test(arguments: members, ["\u{0}", "\u{1F}", "\u{7F}", "\u{85}"])
    func aControlCharacterIsRefused400NamingTheMember(member: String, character: String) throws {
        let error = try #require(throws: APIError.self) { try Parts.decode(Self.batch(member, character)) }
        #expect(error.status == .badRequest)
        let scalar = String(character.unicodeScalars.first!.value, radix: 16, uppercase: true)
        let field: String = switch member {
        case "events[1].attributes.key": "events[1].attributes.pl\\u{\(scalar)}an"
        case "events[1].variants.key": "events[1].variants.check\\u{\(scalar)}out"
        default: member
        }
        #expect(error.problems.map(\.field) == [field], "\(error.message)")
        let padded = String(repeating: "0", count: 4 - scalar.count) + scalar
        #expect(error.problems.first?.problem.contains("control character U+\(padded)") == true, "\(error.message)")
        #expect(!error.message.contains(character))
    }

    @Test
    func controlCharactersAreFoundWhereverTheyAre() {
        #expect(EventBatchDecoder.controlCharacter(in: "plain é ü 😀") == nil)
        #expect(EventBatchDecoder.controlCharacter(in: "ab\u{0}c")?.offset == 2)
        #expect(EventBatchDecoder.controlCharacter(in: "é\u{9F}")?.scalar == 0x9F)
        #expect(EventBatchDecoder.controlCharacter(in: "é\u{9F}")?.offset == 2)
        // U+00A0 (0xC2 0xA0) is not a control character.
        #expect(EventBatchDecoder.controlCharacter(in: "a\u{A0}b") == nil)
        #expect(EventBatchDecoder.escapingControlCharacters("a\u{0}b\u{7F}") == "a\\u{0}b\\u{7F}")
    }

    /// Through the server: a NUL in the batch id is 400 and reaches no store (before, the SQLite
    /// store recorded the id without its events and answered every retry as a duplicate).
    @Test
    func aNULInTheBatchIDIs400AndReachesNoStore() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let body = EventIngestionTests.body(id: "batch\u{0}1")
            let reply = try await EventIngestionTests.ingest(server, body, token: token)
            #expect(reply.status == 400, "\(reply.body)")
            #expect(reply.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "batchId")
            let again = try await EventIngestionTests.ingest(server, body, token: token)
            #expect(again.status == 400)
            #expect(await store.calls.isEmpty)
            let metrics = try await server.request(.GET, "/metrics").body
            #expect(metrics.contains(#"flag_server_event_batches_refused_total{reason="malformed"} 2"#))
        }
    }

    /// The store on its own (a batch that did not come through the decoder): a NUL in the id is
    /// stored with its events, and a retry is a duplicate.
    @Test
    func theSQLiteStoreStoresABatchWhoseIDHoldsANULWhole() async throws {
        typealias Fixtures = FlagEventStoreCompatibilityTests
        let store = try await SQLiteFlagEventStore(path: nil)
        do {
            try await store.migrate()
            let batch = Fixtures.batch(
                "a\u{0}b", summaries: [Fixtures.summary(count: 3, start: Fixtures.t0)])
            #expect(try await store.ingest([batch, Fixtures.batch("a", summaries: [Fixtures.summary(count: 4, start: Fixtures.t0)])]) == [true, true])
            #expect(try await store.ingest([batch]) == [false])
            let rollups = try await store.rollups(
                environment: "prod", flag: nil, granularity: .hour, from: Fixtures.t0, to: Fixtures.t0 + Fixtures.hour)
            #expect(rollups.map(\.evaluations).reduce(0, +) == 7)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test(arguments: ["gzip", "br", "x-unknown", "gzip, identity"])
    func aContentEncodingOtherThanIdentityIs415(encoding: String) async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            // Plain JSON, labelled as encoded: not stored as it is, not a 500.
            let reply = try await server.request(
                .POST, "/ofrep/v1/ingestion", token: token, body: EventIngestionTests.body(id: "labelled"),
                headers: [("Content-Encoding", encoding)])
            #expect(reply.status == 415, "\(reply.body)")
            #expect(reply.header("Accept-Encoding") == "identity")
            #expect(reply.json?["error"]?["message"]?.stringValue?.contains("Content-Encoding \"\(encoding)\"") == true, "\(reply.body)")
            #expect(await store.calls.isEmpty)
            let identity = try await server.request(
                .POST, "/ofrep/v1/ingestion", token: token, body: EventIngestionTests.body(id: "identity"),
                headers: [("Content-Encoding", "identity")])
            #expect(identity.status == 202)
            #expect(await store.stored.map(\.id) == ["identity"])
        }
    }

    /// A batch of session health events sent with `Flag-Event-Priority: health` is stored like
    /// any other; the header on anything else, or another priority, is refused with 422 naming
    /// the header, and nothing is stored.
    @Test
    func theHealthPriorityIsForSessionHealthEventsAlone() async throws {
        let store = RecordingEventStore()
        try await TestServer.with(eventStore: store) { server in
            let token = try await server.token(.client, environment: "production")
            let health = EventIngestionTests.body(id: "health", exposures: 0, summaries: [], tracked: 2) { batch in
                batch["events"] = .array([
                    ["name": "$session", "unit": "user-0", "variants": ["checkout": "on"], "time": .int(Int(EventIngestionTests.nowMilliseconds))],
                    ["name": "$crash", "unit": "user-0", "variants": ["checkout": "on"], "time": .int(Int(EventIngestionTests.nowMilliseconds))],
                ])
            }
            let stored = try await server.request(
                .POST, "/ofrep/v1/ingestion", token: token, body: health, headers: [("Flag-Event-Priority", "health")])
            #expect(stored.status == 202, "\(stored.body)")
            #expect(await store.stored.map(\.id) == ["health"])
            let mixed = try await server.request(
                .POST, "/ofrep/v1/ingestion", token: token, body: EventIngestionTests.body(id: "mixed"),
                headers: [("Flag-Event-Priority", "health")])
            #expect(mixed.status == 422, "\(mixed.body)")
            #expect(mixed.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "Flag-Event-Priority", "\(mixed.body)")
            #expect(mixed.json?["error"]?["message"]?.stringValue?.contains("1 exposures") == true, "\(mixed.body)")
            let unknown = try await server.request(
                .POST, "/ofrep/v1/ingestion", token: token, body: health, headers: [("Flag-Event-Priority", "urgent")])
            #expect(unknown.status == 422, "\(unknown.body)")
            #expect(unknown.json?["error"]?["message"]?.stringValue?.contains("\"urgent\"") == true, "\(unknown.body)")
            #expect(await store.stored.map(\.id) == ["health"])
        }
    }

}
