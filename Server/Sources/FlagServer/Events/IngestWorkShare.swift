/// How much processor time the work of ingesting events used over the last ``window``: decoding
/// bodies and the event store's calls on the threads of the ingest's own, as the kernel counts it
/// (time a thread ran, not time it waited), over the window's length.
///
/// A share of 1 means one core's worth of time. The queue sheds new requests while the share is
/// over ``EventIngestionOptions/maximumIngestShare``, so that ingestion cannot take more of the
/// machine than that from delivery, however much room its queue still has. Measured as processor
/// time, several requests in flight at once count for what they cost: eight callers waiting on
/// one disk flush add up to that flush's processor time, not to eight times its length.
///
/// The caller passes the ingest's total processor time so far at each reading (``share(at:cpu:)``);
/// the share is what the total grew by since the newest reading that is at least a window old,
/// over the time since that reading.
struct IngestWorkShare {
    typealias Instant = ContinuousClock.Instant

    let window: Duration
    /// Readings kept, oldest first: the newest at least a window old (the base), then at most one
    /// per ``spacing``.
    private var readings: [(at: Instant, cpu: Duration)] = []
    private var head = 0

    /// Readings closer together than this are not kept: the base is then at most this much older
    /// than a window.
    var spacing: Duration { window / 16 }

    init(window: Duration) {
        self.window = window
    }

    /// The processor time used during the window ending at `now`, over the window's length, when
    /// `cpu` is the ingest's total processor time so far. Before a window has passed since the
    /// first reading, the time used since then over a window; after a pause in readings, the time
    /// used since the last reading before the window over the time since.
    mutating func share(at now: Instant, cpu: Duration) -> Double {
        if head == readings.count || now - readings[readings.count - 1].at >= spacing {
            readings.append((now, cpu))
        }
        // The base is the newest reading at least a window old; older ones no longer count.
        let from = now - window
        while head + 1 < readings.count, readings[head + 1].at <= from {
            head += 1
        }
        if head > 64, head * 2 > readings.count {
            readings.removeFirst(head)
            head = 0
        }
        // Over the time since the base when that is longer than a window (no reading for a
        // while), so the share is never overstated.
        let base = readings[head]
        return max(0, (cpu - base.cpu) / max(window, now - base.at))
    }
}
