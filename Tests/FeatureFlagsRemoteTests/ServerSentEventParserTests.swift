import FeatureFlagsRemote
import Foundation
import Testing

/// The event stream parser alone: line endings, fields, dispatch, and its limits.
struct ServerSentEventParserTests {
    private func events(_ text: String, limits: ServerSentEventParser.Limits = .init()) throws -> [ServerSentEvent] {
        try ServerSentEventParser.events(in: Array(text.utf8), limits: limits)
    }

    /// Feeds `text` one byte per chunk.
    private func eventsBytewise(_ text: String) throws -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        for byte in text.utf8 { events += try parser.parse([byte]) }
        parser.finish()
        return events
    }

    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyLineEndingEndsALine(_ ending: String) throws {
        let text = ["id: 7", "data: {\"type\":\"refetchEvaluation\"}", "", "data: second", "", ""].joined(separator: ending)
        let expected = [
            ServerSentEvent(data: #"{"type":"refetchEvaluation"}"#, lastEventID: "7"),
            ServerSentEvent(data: "second", lastEventID: "7"),
        ]
        #expect(try events(text) == expected)
        // Fed byte by byte, a CRLF split between two chunks still ends one line, not two.
        #expect(try eventsBytewise(text) == expected)
    }

    @Test func commentsAreIgnoredAndDataLinesJoinWithLineFeeds() throws {
        let text = ": environment production at revision 4\nretry: 2000\n\n: keep-alive\ndata: one\ndata:two\ndata\n\n"
        #expect(try events(text) == [ServerSentEvent(data: "one\ntwo\n")])
    }

    @Test func theEventFieldNamesTheTypeAndResetsAfterDispatch() throws {
        let text = "event: refetch\ndata: a\n\ndata: b\n\n"
        #expect(try events(text) == [ServerSentEvent(type: "refetch", data: "a"), ServerSentEvent(data: "b")])
    }

    @Test func anIDPersistsUntilChangedAndAnIDWithNULIsIgnored() throws {
        var parser = ServerSentEventParser()
        let first = try parser.parse(Array("id: 1\ndata: a\n\ndata: b\n\nid: x\u{0}y\ndata: c\n\nid\ndata: d\n\n".utf8))
        #expect(first.map(\.lastEventID) == ["1", "1", "1", ""])
        #expect(parser.lastEventID == "")
    }

    @Test func retryTakesOnlyDigitsAndSaturates() throws {
        var parser = ServerSentEventParser()
        _ = try parser.parse(Array("retry: 2000\n".utf8))
        #expect(parser.retry == 2000)
        _ = try parser.parse(Array("retry: 20s\nretry: -1\nretry:\n".utf8))
        #expect(parser.retry == 2000)
        _ = try parser.parse(Array("retry: 99999999999999999999999999\n".utf8))
        #expect(parser.retry == Int.max)
    }

    @Test func aLeadingByteOrderMarkIsSkippedOnce() throws {
        #expect(try events("\u{FEFF}data: a\n\n") == [ServerSentEvent(data: "a")])
        #expect(try eventsBytewise("\u{FEFF}data: a\n\n") == [ServerSentEvent(data: "a")])
        // A second one is part of the field name, which is then unknown.
        #expect(try events("\u{FEFF}\u{FEFF}data: a\n\n") == [])
    }

    @Test func anIncompleteEventAtTheEndIsDropped() throws {
        #expect(try events("data: a\n\ndata: half") == [ServerSentEvent(data: "a")])
        #expect(try events("data: a\n") == [])
    }

    @Test func aLineLongerThanTheLimitThrowsAndSaysSo() throws {
        let limits = ServerSentEventParser.Limits(maximumLineLength: 16, maximumEventSize: 1024)
        #expect(try events(": " + String(repeating: "x", count: 14) + "\n", limits: limits) == [])
        let error = #expect(throws: ServerSentEventParseError.self) {
            try events(": " + String(repeating: "x", count: 15) + "\n", limits: limits)
        }
        #expect(error?.description == "An event stream line is longer than 16 bytes; the stream was dropped.")
        // A line that never ends is refused as it grows, without waiting for its end.
        var parser = ServerSentEventParser(limits: limits)
        #expect(throws: ServerSentEventParseError.self) {
            for _ in 0..<100 { _ = try parser.parse(Array("xxxxxxxx".utf8)) }
        }
    }

    @Test func anEventLargerThanTheLimitThrowsAndSaysSo() throws {
        let limits = ServerSentEventParser.Limits(maximumLineLength: 64, maximumEventSize: 32)
        let fits = String(repeating: "data: 123456789\n", count: 3) + "\n"
        #expect(try events(fits, limits: limits).first?.data.utf8.count == 29)
        let error = #expect(throws: ServerSentEventParseError.self) {
            try events(String(repeating: "data: 123456789\n", count: 4) + "\n", limits: limits)
        }
        #expect(error?.description.contains("larger than 32 bytes") == true)
    }

    @Test func invalidUTF8IsReplacedNotFatal() throws {
        let bytes: [UInt8] = Array("data: ".utf8) + [0xFF, 0xFE] + Array("\n\n".utf8)
        let parsed = try ServerSentEventParser.events(in: bytes)
        #expect(parsed == [ServerSentEvent(data: "\u{FFFD}\u{FFFD}")])
    }
}
