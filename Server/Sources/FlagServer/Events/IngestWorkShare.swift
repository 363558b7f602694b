/// How much of the last ``window`` the work of ingesting events took: decoding bodies and the
/// event store's calls, in wall-clock time, added up (two at once count twice).
///
/// A share of 1 means one piece of ingest work ran the whole window. The queue sheds new requests
/// while the share is over ``EventIngestionOptions/maximumIngestShare``, so that ingestion cannot
/// take more of the machine than that from delivery, however much room its queue still has.
/// Work still running counts from its start (or the window's) to now, so a store call that hangs
/// shows at once rather than when it ends.
struct IngestWorkShare {
    typealias Instant = ContinuousClock.Instant

    /// A piece of work begun with ``begin(at:)``, to be passed to ``end(_:at:)``.
    struct Work: Sendable, Hashable {
        fileprivate let id: Int
    }

    let window: Duration
    private var finished: [(start: Instant, end: Instant)] = []
    private var running: [Int: Instant] = [:]
    private var nextID = 0

    init(window: Duration) {
        self.window = window
    }

    mutating func begin(at now: Instant) -> Work {
        nextID += 1
        running[nextID] = now
        return Work(id: nextID)
    }

    mutating func end(_ work: Work, at now: Instant) {
        guard let start = running.removeValue(forKey: work.id) else { return }
        finished.append((start, now))
        // Work that ended before the window began no longer counts.
        let from = now - window
        if let first = finished.first, first.end <= from {
            finished.removeAll { $0.end <= from }
        }
    }

    /// The time the work took during the window ending at `now`, over the window's length.
    func share(at now: Instant) -> Double {
        let from = now - window
        var busy = Duration.zero
        for work in finished where work.end > from {
            busy += work.end - max(work.start, from)
        }
        for start in running.values where start < now {
            busy += now - max(start, from)
        }
        return busy / window
    }
}
