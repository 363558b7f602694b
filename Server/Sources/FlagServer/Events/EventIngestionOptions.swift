/// Bounds on what `POST /ofrep/v1/ingestion` accepts, and on the work it queues.
///
/// A batch is checked where it enters (``EventBatchDecoder``): the body, the events in it, every
/// string and attribute, and the nesting of JSON values. Accepted batches wait in a bounded queue
/// (``EventIngestionQueue``) that hands them to the event store in groups; past the queue's bounds
/// a request is refused at once, 503 with `Retry-After`, before its body is decoded.
public struct EventIngestionOptions: Sendable, Hashable {
    /// The largest body, in bytes (413 above). Default 1 MiB.
    public var maximumBatchBytes: Int = 1024 * 1024
    /// The most exposures, summaries and tracked events in one batch together (413 above).
    /// Default 2,000.
    public var maximumEvents: Int = 2_000
    /// The longest flag key, variant, reason, unit, revision, app version, build configuration or
    /// platform, in UTF-8 bytes. Default 256.
    public var maximumStringBytes: Int = 256
    /// The longest tracked event name, in UTF-8 bytes (at least 1). Default 256.
    public var maximumEventNameBytes: Int = 256
    /// The most attributes of one tracked event (and variants it carries). Default 32.
    public var maximumAttributes: Int = 32
    /// The largest attribute value, as compact JSON, in bytes. Default 1,024.
    public var maximumAttributeBytes: Int = 1024
    /// The largest exposure value, as compact JSON, in bytes. Default 8,192.
    public var maximumValueBytes: Int = 8 * 1024
    /// The deepest nesting of an exposure's value or an attribute value (a scalar is depth 0).
    /// Default 8.
    public var maximumValueDepth: Int = 8
    /// The longest batch id, in UTF-8 bytes. Default 64.
    public var maximumBatchIDBytes: Int = 64
    /// How far before the server's clock an event's time may lie, in milliseconds. Default 400
    /// days (a device offline for a year still delivers).
    public var maximumEventAge: Int64 = 400 * 86_400_000
    /// How far after the server's clock an event's time may lie, in milliseconds (device clocks
    /// drift). Default 1 day.
    public var maximumClockSkew: Int64 = 86_400_000

    /// The most events waiting for the store or being stored, over all requests; a batch that
    /// would go past it is shed (503). Default 100,000.
    public var maximumQueuedEvents: Int = 100_000
    /// The most body bytes held by requests being read, decoded or waiting for the store, over all
    /// tokens. A request holds its body's bytes as they arrive (not the `Content-Length` it
    /// declares), so a slow upload holds only what it sent; a request finding the budget full is
    /// shed (503) before its body is read, and one whose next piece would pass it is shed then.
    /// Default 32 MiB.
    public var maximumQueuedBytes: Int = 32 * 1024 * 1024
    /// The most of ``maximumQueuedBytes`` the requests of one token may hold at once; past it the
    /// token's request is answered 429 with `Retry-After`, and the rest of the budget stays for
    /// other tokens. A client token ships inside every copy of an app, so anyone may hold one:
    /// this keeps one token's uploads, however many and however slow, from starving every other
    /// token and environment. Keep it at least ``maximumBatchBytes`` (a largest batch must fit)
    /// and below ``maximumQueuedBytes``. Default 8 MiB.
    public var maximumQueuedBytesPerToken: Int = 8 * 1024 * 1024
    /// The longest a request's body may take to arrive, from when the request is admitted to its
    /// last byte, however steadily it trickles in. A body not complete by then is answered 408, its
    /// bytes are given back to the budget, and the connection is closed. (The server's
    /// `bodyTimeout` bounds the pause between two pieces; this bounds their total.) Default 30 s:
    /// a largest batch (1 MiB) arrives in time at 280 kbit/s.
    public var bodyReadTimeout: Duration = .seconds(30)
    /// The most batches in one call to ``FlagEventStore/ingest(_:)``. Default 256.
    public var maximumBatchesPerCommit: Int = 256
    /// The most events in one call to ``FlagEventStore/ingest(_:)`` (a group holds at least one
    /// batch, however large). Default 20,000.
    public var maximumEventsPerCommit: Int = 20_000
    /// Calls to ``FlagEventStore/ingest(_:)`` in flight at once in this process. Default 1.
    public var concurrentCommits: Int = 1
    /// Bodies decoded at once in this process, so that decoding never takes every core from
    /// delivery. Default 1.
    public var concurrentDecodes: Int = 1
    /// The most processor time, in cores, that the ingest's work (decoding bodies; the SQLite
    /// event store's threads) may have used over ``ingestShareWindow`` for a new request to be
    /// admitted; past it requests are shed (503) before their body is read, however much room the
    /// queue has, so that ingestion leaves the cores to delivery. Time spent waiting (for a disk's
    /// flush, a lock, a decoding thread) is not counted, so callers in flight at once count for the
    /// work they cause. Default 1.5 (a core and a half: on 2 cores, eight callers at once store
    /// 1.9 times one caller's events and delivery keeps 96 % of its idle throughput, against 0.4
    /// times and 86 % at 1, `Docs/Scale.md`); `.infinity` sheds only on the queue's size.
    public var maximumIngestShare: Double = 1.5
    /// The share of ``maximumQueuedBytes`` and ``maximumQueuedEvents`` that only batches of
    /// session health events (sent with `Flag-Event-Priority: health`) may use; such batches are
    /// also admitted whatever ``maximumIngestShare``, so the evidence guarded rollouts decide on is
    /// never shed before exposures. Default 0.1.
    public var healthReserve: Double = 0.1
    /// The window over which ``maximumIngestShare`` is measured. Default 1 s.
    public var ingestShareWindow: Duration = .seconds(1)
    /// The nice value of the threads that decode bodies and (SQLite) run the event store's calls,
    /// on Linux: above 0, the kernel gives the threads serving delivery the cores first when both
    /// want them. Default 10; 0 keeps them at the process's priority.
    public var ingestThreadNiceness: Int32 = 10
    /// The `Retry-After` of a shed request and of a failed commit, in seconds. Default 5.
    public var retryAfterSeconds: Int = 5
    /// The flag and variant pairs of one environment with a `flag_evaluations_total` series of
    /// their own; the others are counted under `flag="__other__"`. Default 1,000.
    public var maximumEvaluationSeries: Int = 1_000

    /// The defaults documented on each member.
    public init() {}
}
