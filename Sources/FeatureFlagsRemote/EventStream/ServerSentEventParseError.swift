/// Why an event stream could not be parsed: a line or an event past its limit.
public struct ServerSentEventParseError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case lineTooLong(limit: Int)
        case eventTooLarge(limit: Int)
    }

    let kind: Kind

    init(_ kind: Kind) {
        self.kind = kind
    }

    /// Which limit the stream passed, with the limit.
    public var description: String {
        switch kind {
        case .lineTooLong(let limit):
            "An event stream line is longer than \(limit) bytes; the stream was dropped."
        case .eventTooLarge(let limit):
            "An event stream event's 'data' is larger than \(limit) bytes; the stream was dropped."
        }
    }
}
