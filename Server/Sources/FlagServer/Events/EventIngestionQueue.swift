import FlagServerModel
import Synchronization

/// Collects accepted batches and hands them to the event store in groups (group commit), so that
/// many small requests cost few transactions, and answers each request once its group is durable.
///
/// - **Bounded.** Requests are admitted before their body is read (``admit(token:)``), hold
///   their body's bytes as they arrive (``hold(_:in:)``), and their events before they wait
///   (``commit(_:)``); past ``EventIngestionOptions/maximumQueuedBytes`` or
///   ``EventIngestionOptions/maximumQueuedEvents`` a request is shed at once, never queued. Events
///   stay counted until their group's call to the store returns, so a slow store fills the queue
///   and sheds rather than buffering.
/// - **Per token.** The requests of one token hold at most
///   ``EventIngestionOptions/maximumQueuedBytesPerToken`` of the bytes: a client token ships in
///   every app, and one holder of it must not starve the others. Of a token's share too, normal
///   requests leave ``EventIngestionOptions/healthReserve`` to its health batches, so that a
///   flood sent with an app's own token cannot keep that app's crash reports out.
/// - **A share of the machine.** Requests are also shed before their body is read while the
///   ingest's work (decoding and the store's threads, in processor time, ``IngestWorkShare``)
///   used more than ``EventIngestionOptions/maximumIngestShare`` of a core over the last second:
///   a full queue protects memory, this protects delivery, which shares the cores.
/// - **Groups.** At most ``EventIngestionOptions/concurrentCommits`` calls to
///   ``FlagEventStore/ingest(_:)`` are in flight; each takes the waiting health batches first,
///   oldest first, then the oldest other batches (so evidence does not wait behind a flood), up to
///   ``EventIngestionOptions/maximumBatchesPerCommit`` batches and
///   ``EventIngestionOptions/maximumEventsPerCommit`` events (and always at least one batch).
/// - **Whole or nothing.** The commits run in a task of the queue's own, not in a request's: a
///   client that gives up (its connection closes, its task is cancelled) after its batch was
///   queued does not stop or split the group. The batch is stored with its group, or the group
///   fails and none of it is; the store's one transaction per call sees to the rest.
final class EventIngestionQueue: Sendable {
    /// What became of a queued batch.
    enum Outcome: Sendable, Equatable {
        /// Stored now (`true`), or its id was stored before (`false`: a repeated batch).
        case stored(new: Bool)
        /// The group's call to the store failed: nothing of it was stored.
        case failed(StoreError)
    }

    /// Which budgets a request may use.
    enum Priority: Sendable, Equatable {
        /// Exposures, summaries and tracked events: the budgets but their health reserve, and only
        /// while the ingest's share of the machine is under its bound.
        case normal
        /// A batch of session health events alone (`$session`, `$crash`, `$error`), the evidence
        /// guarded rollouts decide on: never shed before a normal one. It may use the whole
        /// budgets, ``EventIngestionOptions/healthReserve`` of which normal requests leave to it,
        /// and is admitted whatever the ingest's share.
        case health
    }

    /// Bytes a request holds, from its body's first piece until it answers.
    struct Reservation: Sendable, Equatable {
        /// The token whose share of the budget the bytes count against.
        let token: String
        var priority: Priority = .normal
        fileprivate(set) var bytes = 0
    }

    /// Why a request was not admitted (``admit(token:)``), or a piece of its body not held
    /// (``hold(_:in:)``).
    enum Refusal: Error, Equatable {
        /// Its bytes would pass ``EventIngestionOptions/maximumQueuedBytes``.
        case bytes
        /// Its bytes would pass ``EventIngestionOptions/maximumQueuedBytesPerToken``.
        case tokenBytes
        /// The ingest's work took this share of the last window, more than
        /// ``EventIngestionOptions/maximumIngestShare``.
        case share(Double)
    }

    private struct Waiting {
        var batch: EventBatch
        /// Resumed with the group's outcome (never with `nil`, which means "shed").
        var continuation: CheckedContinuation<Outcome?, Never>
    }

    /// Batches waiting for a commit, oldest first.
    private struct Lane {
        var waiting: [Waiting] = []
        /// Index of the first batch in ``waiting`` not yet handed to a commit.
        var head = 0

        var isEmpty: Bool { head == waiting.count }
        var next: Waiting? { isEmpty ? nil : waiting[head] }

        mutating func append(_ batch: Waiting) { waiting.append(batch) }

        /// Hands the next batch to a commit, dropping taken ones from the array now and then.
        mutating func take() {
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: waiting.count <= 1024)
                head = 0
            } else if head > 1024, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
        }
    }

    private struct State: ~Copyable {
        /// Session health batches, taken before ``normal`` ones.
        var health = Lane()
        var normal = Lane()
        /// Events waiting or being stored.
        var queuedEvents = 0
        var reservedBytes = 0
        /// Bytes held by each token's requests (a token holding none has no entry).
        var reservedByToken: [String: Int] = [:]
        var commitsInFlight = 0
        var work: IngestWorkShare
    }

    let store: any FlagEventStore
    let options: EventIngestionOptions
    /// Holds the requests of clients that come back before their `Retry-After`.
    let refusals = RefusalHold()
    private let state: Mutex<State>
    private let clock: @Sendable () -> ContinuousClock.Instant
    /// The ingest's processor time so far (tests pass one they set), when not decoding's plus the
    /// store's threads'.
    private let processorTime: (@Sendable () -> Duration)?
    /// Processor time spent decoding bodies (``measuringWork(_:)``), in nanoseconds.
    private let decodeNanoseconds = Atomic<Int64>(0)
    /// Called after every call to the store: the batches, their outcomes, and how long it took.
    private let observe: @Sendable ([EventBatch], Result<[Bool], StoreError>, Duration) -> Void

    /// - Parameters:
    ///   - clock: the time the ingest's work share is measured in (tests pass one they move).
    ///   - processorTime: the ingest's processor time so far (tests pass one they set); by default
    ///     the time spent decoding bodies plus the store's ``FlagEventStore/threadProcessorTime``.
    init(
        store: any FlagEventStore, options: EventIngestionOptions,
        observe: @escaping @Sendable ([EventBatch], Result<[Bool], StoreError>, Duration) -> Void = { _, _, _ in },
        clock: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now },
        processorTime: (@Sendable () -> Duration)? = nil
    ) {
        self.store = store
        self.options = options
        self.clock = clock
        self.processorTime = processorTime
        self.observe = observe
        state = Mutex(State(work: IngestWorkShare(window: options.ingestShareWindow)))
    }

    /// Admits a request of `token` about to read its body, holding nothing yet (its body's bytes
    /// are held as they arrive, ``hold(_:in:)``); refuses (shed the request) while the ingest's
    /// work share is over ``EventIngestionOptions/maximumIngestShare`` (a normal request), or
    /// while the byte budget, the whole or the token's (each less the health reserve for a normal
    /// request), is already spent, or has no room left for the `declared` bytes the request's
    /// `Content-Length` announces (they are not held: a body holds what arrives). Give the
    /// reservation back with ``release(_:)`` once the request answered.
    func admit(token: String, priority: Priority = .normal, declared: Int = 0) -> Result<Reservation, Refusal> {
        let now = clock()
        let cpu = ingestProcessorTime
        return state.withLock { state in
            let share = state.work.share(at: now, cpu: cpu)
            guard priority == .health || share <= options.maximumIngestShare else { return .failure(.share(share)) }
            let declared = max(0, declared)
            guard state.reservedBytes < allowance(of: options.maximumQueuedBytes, for: priority),
                state.reservedBytes + declared <= allowance(of: options.maximumQueuedBytes, for: priority)
            else { return .failure(.bytes) }
            let byToken = state.reservedByToken[token, default: 0]
            let tokenBudget = allowance(of: options.maximumQueuedBytesPerToken, for: priority)
            guard byToken < tokenBudget, byToken + declared <= tokenBudget else { return .failure(.tokenBytes) }
            return .success(Reservation(token: token, priority: priority))
        }
    }

    /// What requests of `priority` may use of a budget of `whole` (bytes or events): all of it for
    /// health, all but the health reserve for the others.
    private func allowance(of whole: Int, for priority: Priority) -> Int {
        priority == .health ? whole : whole - Int(Double(whole) * options.healthReserve)
    }

    /// Holds `bytes` more (a piece of the body that arrived) in `reservation`, or refuses when
    /// that would pass the byte budget, the whole (``Refusal/bytes``) or the token's
    /// (``Refusal/tokenBytes``), each less the health reserve for a normal request; a refused
    /// piece holds nothing.
    func hold(_ bytes: Int, in reservation: inout Reservation) -> Refusal? {
        let token = reservation.token
        let budget = allowance(of: options.maximumQueuedBytes, for: reservation.priority)
        let tokenBudget = allowance(of: options.maximumQueuedBytesPerToken, for: reservation.priority)
        let refusal = state.withLock { state -> Refusal? in
            let byToken = state.reservedByToken[token, default: 0]
            guard byToken + bytes <= tokenBudget else { return .tokenBytes }
            guard state.reservedBytes + bytes <= budget else { return .bytes }
            state.reservedBytes += bytes
            state.reservedByToken[token] = byToken + bytes
            return nil
        }
        if refusal == nil { reservation.bytes += bytes }
        return refusal
    }

    /// A reservation of `token` holding `bytes`, or `nil` when ``admit(token:)`` or
    /// ``hold(_:in:)`` refuses.
    func reserve(bytes: Int, token: String = "") -> Reservation? {
        guard var reservation = try? admit(token: token).get() else { return nil }
        guard hold(bytes, in: &reservation) == nil else { return nil }
        return reservation
    }

    /// Runs `work` (decoding a body, on the calling thread) and counts the processor time the
    /// thread spent in it in the ingest's share.
    func measuringWork<T>(_ work: () throws -> T) rethrows -> T {
        let start = ThreadCPUTime.current()
        defer {
            let spent = ThreadCPUTime.current() - start
            decodeNanoseconds.add(spent.components.seconds * 1_000_000_000 + spent.components.attoseconds / 1_000_000_000, ordering: .relaxed)
        }
        return try work()
    }

    /// The ingest's processor time so far: decoding's and the store's threads'.
    private var ingestProcessorTime: Duration {
        if let processorTime { return processorTime() }
        return .nanoseconds(decodeNanoseconds.load(ordering: .relaxed)) + store.threadProcessorTime
    }

    /// The share of the last window the ingest's work took (for tests and metrics).
    var workShare: Double {
        let now = clock()
        let cpu = ingestProcessorTime
        return state.withLock { $0.work.share(at: now, cpu: cpu) }
    }

    func release(_ reservation: Reservation) {
        let bytes = reservation.bytes
        guard bytes > 0 else { return }
        state.withLock { state in
            state.reservedBytes -= bytes
            let left = state.reservedByToken[reservation.token, default: 0] - bytes
            state.reservedByToken[reservation.token] = left > 0 ? left : nil
        }
    }

    /// Events waiting or being stored, and bytes reserved (for tests and metrics).
    var load: (events: Int, bytes: Int) { state.withLock { ($0.queuedEvents, $0.reservedBytes) } }

    /// Bytes reserved by the requests of `token` (for tests).
    func bytes(of token: String) -> Int { state.withLock { $0.reservedByToken[token, default: 0] } }

    /// Queues `batch` and waits until its group's call to the store returned; `nil` (nothing
    /// queued) when its events would pass ``EventIngestionOptions/maximumQueuedEvents`` (less the
    /// health reserve, for a normal batch).
    ///
    /// Waiting is not cancellable: once queued, the batch's fate is its group's.
    func commit(_ batch: EventBatch, priority: Priority = .normal) async -> Outcome? {
        let events = batch.eventCount
        let budget = allowance(of: options.maximumQueuedEvents, for: priority)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome?, Never>) in
            let startsCommit = state.withLock { state -> Bool? in
                // A batch larger than the whole bound still goes when the queue is empty.
                guard state.queuedEvents == 0 || state.queuedEvents + events <= budget else {
                    return nil
                }
                state.queuedEvents += events
                let waiting = Waiting(batch: batch, continuation: continuation)
                if priority == .health { state.health.append(waiting) } else { state.normal.append(waiting) }
                guard state.commitsInFlight < max(1, options.concurrentCommits) else { return false }
                state.commitsInFlight += 1
                return true
            }
            switch startsCommit {
            case nil: continuation.resume(returning: nil)
            case true?: Task { await self.commitUntilEmpty() }
            case false?: break
            }
        }
    }

    /// Takes groups of waiting batches (health first) and stores them, one call at a time, until
    /// none waits.
    private func commitUntilEmpty() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                var taken: [Waiting] = []
                var events = 0
                /// Takes `lane`'s oldest batches while the group has room; `false` once it is full.
                func fill(from lane: inout Lane) -> Bool {
                    while let next = lane.next {
                        guard taken.count < max(1, options.maximumBatchesPerCommit) else { return false }
                        if !taken.isEmpty, events + next.batch.eventCount > options.maximumEventsPerCommit { return false }
                        taken.append(next)
                        events += next.batch.eventCount
                        lane.take()
                    }
                    return true
                }
                if fill(from: &state.health) { _ = fill(from: &state.normal) }
                if taken.isEmpty { state.commitsInFlight -= 1 }
                return taken
            }
            guard !group.isEmpty else { return }
            let batches = group.map(\.batch)
            let clock = ContinuousClock()
            let started = clock.now
            let result: Result<[Bool], StoreError>
            do {
                let stored = try await store.ingest(batches)
                result = stored.count == batches.count
                    ? .success(stored)
                    : .failure(.database("the event store answered \(stored.count) outcomes for \(batches.count) batches"))
            } catch {
                result = .failure(error)
            }
            let elapsed = clock.now - started
            let events = batches.reduce(0) { $0 + $1.eventCount }
            state.withLock { $0.queuedEvents -= events }
            observe(batches, result, elapsed)
            for (index, waiting) in group.enumerated() {
                switch result {
                case .success(let stored): waiting.continuation.resume(returning: .stored(new: stored[index]))
                case .failure(let error): waiting.continuation.resume(returning: .failed(error))
                }
            }
        }
    }
}
