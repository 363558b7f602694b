import FeatureFlags
import Foundation
import Testing

@testable import FeatureFlagsRemote

/// `eventStreams` in an OFREP bulk response: read within bounds, resolved on the environment's
/// origin only, printed without secrets.
struct RemoteEventStreamTests {
    static let base = URL(string: "https://flags.example.com/api/v2")!

    private func resolve(_ stream: RemoteEventStream) -> Result<URL, RemoteLoadError> {
        stream.resolvedURL(relativeTo: Self.base)
    }

    @Test func aRequestURIResolvesAgainstTheEnvironmentsOrigin() throws {
        let url = try resolve(RemoteEventStream(type: "sse", requestURI: "/ofrep/v1/events?channel=a")).get()
        #expect(url.absoluteString == "https://flags.example.com/ofrep/v1/events?channel=a")
        let withPort = RemoteEventStream(type: "sse", requestURI: "/events")
            .resolvedURL(relativeTo: URL(string: "http://127.0.0.1:8080")!)
        #expect(try withPort.get().absoluteString == "http://127.0.0.1:8080/events")
        let sameOrigin = RemoteEventStream(type: "sse", origin: "https://flags.example.com:443", requestURI: "/events")
        #expect(try resolve(sameOrigin).get().absoluteString == "https://flags.example.com:443/events")
        #expect(try resolve(RemoteEventStream(type: "sse", url: "https://FLAGS.example.com/e")).get().host == "FLAGS.example.com")
    }

    @Test(arguments: [
        RemoteEventStream(type: "sse", url: "https://flags.example.com.evil.net/e"),
        RemoteEventStream(type: "sse", url: "http://flags.example.com/e"),
        RemoteEventStream(type: "sse", url: "https://flags.example.com:8443/e"),
        RemoteEventStream(type: "sse", url: "//evil.net/e"),
        RemoteEventStream(type: "sse", origin: "https://evil.net", requestURI: "/e"),
    ])
    func anotherOriginIsRefused(_ stream: RemoteEventStream) throws {
        guard case .failure(let error) = resolve(stream) else {
            Issue.record("\(stream) was not refused")
            return
        }
        #expect(error.code == .eventStreamRefused)
        #expect(error.message.contains("another origin"))
    }

    @Test(arguments: [
        RemoteEventStream(type: "sse"),
        RemoteEventStream(type: "sse", requestURI: "events"),
        RemoteEventStream(type: "sse", url: "ftp://flags.example.com/e"),
    ])
    func aStreamWithoutAUsableURLIsRefused(_ stream: RemoteEventStream) {
        guard case .failure(let error) = resolve(stream) else {
            Issue.record("\(stream) was not refused")
            return
        }
        #expect(error.code == .eventStreamRefused)
    }

    @Test func theDescriptionRedactsTheQuery() {
        let stream = RemoteEventStream(
            type: "sse", url: "https://sse.example.com/stream?channels=env_secret_v1&token=abc", inactivityDelay: 120)
        #expect(
            stream.description
                == "RemoteEventStream(type: sse, url: https://sse.example.com/stream?<REDACTED>, inactivityDelaySec: 120)")
        #expect(!String(reflecting: stream).contains("env_secret"))
        var dumped = ""
        dump(stream, to: &dumped)
        #expect(dumped.contains("<REDACTED>"))
        #expect(!dumped.contains("env_secret"))
    }

    @Test func theDecoderReadsEventStreamsWithinBounds() throws {
        let entries =
            [
                #"{"type": "sse", "endpoint": {"requestUri": "/ofrep/v1/events"}, "inactivityDelaySec": 0.5}"#,
                #"{"type": "sse", "url": "https://flags.example.com/e", "inactivityDelaySec": 1e12}"#,
                #""not an object""#, #"{"url": "/no-type"}"#,
            ] + Array(repeating: #"{"type": "websocket"}"#, count: 10)
        let payload = #"{"flags": [], "eventStreams": [\#(entries.joined(separator: ","))]}"#
        let decoded = try RemotePayloadDecoder.decode(Data(payload.utf8), format: .ofrep, registry: testRegistry)
        // Eight entries read at most; those that don't read are skipped, the payload kept.
        #expect(decoded.eventStreams.count == 6)
        #expect(decoded.eventStreams[0] == RemoteEventStream(type: "sse", requestURI: "/ofrep/v1/events"))
        #expect(decoded.eventStreams[1].inactivityDelay == 86_400)
        #expect(decoded.eventStreams[2].type == "websocket")
    }

    @Test func aMalformedEventStreamsMemberDoesNotRejectThePayload() throws {
        let payload = #"{"flags": [{"key": "cues.page_size", "value": 3}], "eventStreams": {"type": "sse"}}"#
        let decoded = try RemotePayloadDecoder.decode(Data(payload.utf8), format: .ofrep, registry: testRegistry)
        #expect(decoded.eventStreams.isEmpty)
        #expect(decoded.values["cues.page_size"]?.value == 3)
    }
}
