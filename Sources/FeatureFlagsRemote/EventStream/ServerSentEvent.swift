/// One event from a `text/event-stream` body, as ``ServerSentEventParser`` dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The `event:` field, `message` when the event had none.
    public var type: String
    /// The `data:` lines, joined with line feeds.
    public var data: String
    /// The last `id:` the stream set, at or before this event (empty when none was ever set);
    /// sent back as `Last-Event-ID` when reconnecting.
    public var lastEventID: String

    /// An event of `type` (`message` by default) carrying `data`.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }
}
