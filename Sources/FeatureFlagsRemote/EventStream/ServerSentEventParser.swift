/// Parses a `text/event-stream` body into events, fed chunk by chunk as bytes arrive, within
/// limits on the length of a line and the size of an event.
///
/// Lines end with LF, CR or CRLF (a CRLF split across two chunks counts once); a leading UTF-8
/// byte order mark is skipped; lines starting with `:` are comments; `data:` lines accumulate
/// and a blank line dispatches them as one event; `id:` sets the last event ID (unless it holds
/// a NUL); `retry:` with only digits sets ``retry``; unknown fields are ignored. An event still
/// incomplete when the stream ends is dropped.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body {
///     for event in try parser.parse(chunk) { handle(event) }
/// }
/// ```
///
/// A line or event past its limit throws ``ServerSentEventParseError``; the parser must not be
/// used afterwards (the caller drops the connection).
public struct ServerSentEventParser: Sendable {
    /// How much one line and one event may hold.
    public struct Limits: Sendable, Hashable {
        /// The longest line, in bytes, without its line ending (64 KiB by default).
        public var maximumLineLength: Int
        /// The most `data` bytes one event may gather (256 KiB by default).
        public var maximumEventSize: Int

        /// Limits of 64 KiB per line and 256 KiB per event by default; each at least 1.
        public init(maximumLineLength: Int = 64 * 1024, maximumEventSize: Int = 256 * 1024) {
            self.maximumLineLength = max(1, maximumLineLength)
            self.maximumEventSize = max(1, maximumEventSize)
        }
    }

    /// The limits in force.
    public let limits: Limits
    /// The last event ID the stream set (empty when none).
    public private(set) var lastEventID = ""
    /// The reconnection time the stream asked for, in milliseconds, if any.
    public private(set) var retry: Int?

    private var line: [UInt8] = []
    private var data: [UInt8] = []
    private var eventType: [UInt8] = []
    private var lastByteWasCR = false
    private var atStreamStart = true
    private var bomBytesSeen = 0

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// A parser holding the stream to `limits`.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Feeds `bytes` and returns the events they complete, in order.
    ///
    /// - Throws: ``ServerSentEventParseError`` when a line or an event grows past ``limits``.
    public mutating func parse(_ bytes: some Sequence<UInt8>) throws(ServerSentEventParseError) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if atStreamStart {
                // Hold back a possible byte order mark until it is complete or ruled out.
                if byte == Self.byteOrderMark[bomBytesSeen] {
                    bomBytesSeen += 1
                    if bomBytesSeen == Self.byteOrderMark.count { atStreamStart = false }
                    continue
                }
                atStreamStart = false
                let held = Self.byteOrderMark.prefix(bomBytesSeen)
                bomBytesSeen = 0
                for heldByte in held { try consume(heldByte, into: &events) }
            }
            try consume(byte, into: &events)
        }
        return events
    }

    /// Ends the stream: an incomplete event is dropped, as the format requires.
    public mutating func finish() {
        line = []
        data = []
        eventType = []
        lastByteWasCR = false
    }

    /// Parses a whole body at once: every event it dispatches, in order.
    ///
    /// - Throws: ``ServerSentEventParseError`` when a line or an event grows past `limits`.
    public static func events(
        in bytes: some Sequence<UInt8>, limits: Limits = Limits()
    ) throws(ServerSentEventParseError) -> [ServerSentEvent] {
        var parser = ServerSentEventParser(limits: limits)
        let events = try parser.parse(bytes)
        parser.finish()
        return events
    }

    private mutating func consume(_ byte: UInt8, into events: inout [ServerSentEvent]) throws(ServerSentEventParseError) {
        switch byte {
        case 0x0A where lastByteWasCR:
            // The LF of a CRLF whose CR already ended the line.
            lastByteWasCR = false
        case 0x0A, 0x0D:
            lastByteWasCR = byte == 0x0D
            try endLine(into: &events)
        default:
            lastByteWasCR = false
            guard line.count < limits.maximumLineLength else {
                throw ServerSentEventParseError(.lineTooLong(limit: limits.maximumLineLength))
            }
            line.append(byte)
        }
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) throws(ServerSentEventParseError) {
        defer { line.removeAll(keepingCapacity: true) }
        guard let first = line.first else {
            dispatch(into: &events)
            return
        }
        if first == UInt8(ascii: ":") { return }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line[...]
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = Array(value)
        case "data":
            guard data.count + value.count + 1 <= limits.maximumEventSize else {
                throw ServerSentEventParseError(.eventTooLarge(limit: limits.maximumEventSize))
            }
            data.append(contentsOf: value)
            data.append(0x0A)
        case "id":
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                // More digits than an Int holds saturate rather than wrap.
                retry = Int(String(decoding: value, as: UTF8.self)) ?? Int.max
            }
        default:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            eventType.removeAll()
        }
        guard !data.isEmpty else { return }
        data.removeLast()
        events.append(
            ServerSentEvent(
                type: eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self),
                data: String(decoding: data, as: UTF8.self),
                lastEventID: lastEventID))
    }
}
