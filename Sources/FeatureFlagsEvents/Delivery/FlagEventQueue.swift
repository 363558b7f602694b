import FeatureFlags
import Foundation

/// The events waiting for delivery, kept in a file of their own so that nothing recorded is lost
/// when the app is suspended, killed or offline for days: events not yet in a batch, batches
/// formed and not yet accepted (each with the id it keeps across retries and relaunches), what
/// was dropped, and when the next attempt may be made.
///
/// Every change is written to the file atomically (a temporary file, then a rename) before the
/// method returns, so a process killed at any moment leaves the file as it was before or after
/// the change: a batch is on disk before it is sent, and removed only after the server accepted
/// it, so a crash in between sends it again with the same id, which the server counts once.
///
/// Bounded by ``Limits``: when an append would go past the limits, summaries of the same flag,
/// variant, reason and app are merged first; then the oldest exposures and tracked events are
/// dropped, then the oldest summaries, then the oldest batches. What is dropped is counted and
/// reported in the next batch formed.
///
/// ``append(_:once:)`` appends under a key, remembered in the same write, so that a report
/// repeated after a kill is queued once.
///
/// Not thread-safe: one owner (``FlagEventDelivery``) uses it from one task at a time.
public final class FlagEventQueue {
    /// How much the queue keeps, and how large a batch may be.
    public struct Limits: Sendable, Hashable {
        /// The most events (exposures, summaries, tracked events) kept, in batches or not.
        public var maximumEvents: Int
        /// The most bytes of events kept, as JSON.
        public var maximumBytes: Int
        /// The most events in one batch.
        public var batchEvents: Int
        /// The most bytes of events in one batch, as JSON.
        public var batchBytes: Int

        /// Limits of 10,000 events and 2 MB kept, 500 events and 256 kB per batch by default; each at least 1.
        public init(maximumEvents: Int = 10_000, maximumBytes: Int = 2_000_000, batchEvents: Int = 500, batchBytes: Int = 256_000) {
            self.maximumEvents = max(1, maximumEvents)
            self.maximumBytes = max(1, maximumBytes)
            self.batchEvents = max(1, batchEvents)
            self.batchBytes = max(1, batchBytes)
        }
    }

    struct Pending: Codable, Equatable {
        var event: FlagEvent
        var bytes: Int
    }

    struct Contents: Codable, Equatable {
        var version = 1
        var pending: [Pending] = []
        var batches: [FlagEventBatch] = []
        var dropped = FlagEventDropCounts()
        /// Failed attempts in a row, for the backoff.
        var failures = 0
        /// No request before this moment (backoff or `Retry-After`).
        var notBefore: Date?
        /// The keys of the latest ``FlagEventQueue/append(_:once:)`` calls, oldest first (at most
        /// ``FlagEventQueue/rememberedKeys``). Optional, so files written before it existed open.
        var onceKeys: [String]?
    }

    /// The file the queue lives in.
    public let url: URL
    /// How much the queue keeps and how large a batch may be.
    public let limits: Limits
    private(set) var contents: Contents
    private let makeID: () -> String

    /// Opens the queue in `url`, reading what a previous launch left there. A file that cannot
    /// be read is moved aside (to `<name>.unreadable`) and the queue starts empty, with the
    /// problem in ``openingProblem``. Temporary files of a write that a killed process left
    /// beside `url` are deleted.
    public init(url: URL, limits: Limits = Limits(), makeID: @escaping () -> String = { UUID().uuidString }) {
        self.url = url
        self.limits = limits
        self.makeID = makeID
        AtomicFile.removeStaleTemporaryFiles(for: url)
        var problem: String?
        if let data = try? Data(contentsOf: url) {
            do {
                contents = try JSONDecoder().decode(Contents.self, from: data)
            } catch {
                contents = Contents()
                let aside = url.appendingPathExtension("unreadable")
                try? FileManager.default.removeItem(at: aside)
                try? FileManager.default.moveItem(at: url, to: aside)
                problem = "The event queue file \(url.path) could not be read (\(error)); it was moved to \(aside.lastPathComponent) and the queue starts empty."
            }
        } else {
            contents = Contents()
        }
        openingProblem = problem
    }

    /// Why the file found at launch was moved aside, if it was.
    public let openingProblem: String?

    /// Called on every save with the change's name (`append`, `form`, `remove`, `drop`, `split`,
    /// `failure`) and the step: `written` once the temporary file is complete, `renamed` once it
    /// replaced the queue's file. For the crash tests, which stop a process at these points and
    /// kill it there.
    package var checkpoint: ((_ change: String, _ step: String) -> Void)?

    // MARK: - Reading

    /// Events not yet in a batch.
    public var pendingEvents: [FlagEvent] { contents.pending.map(\.event) }
    /// Batches formed and not yet accepted, oldest first.
    public var batches: [FlagEventBatch] { contents.batches }
    /// Events dropped and not yet reported in a batch.
    public var dropped: FlagEventDropCounts { contents.dropped }
    /// Events kept, in batches or not.
    public var eventCount: Int { contents.pending.count + contents.batches.reduce(0) { $0 + $1.eventCount } }
    /// Bytes of events kept, as JSON (pending events as encoded one by one, batches whole).
    public var byteCount: Int {
        contents.pending.reduce(0) { $0 + $1.bytes } + contents.batches.reduce(0) { $0 + Self.size(of: $1) }
    }
    /// Failed attempts in a row.
    public var failures: Int { contents.failures }
    /// No request before this moment.
    public var notBefore: Date? { contents.notBefore }
    /// Whether nothing waits.
    public var isEmpty: Bool { contents.pending.isEmpty && contents.batches.isEmpty }

    // MARK: - Changing

    /// Appends events (and what the recorder dropped), holds the queue to its limits and saves.
    public func append(_ events: [FlagEvent], dropped: FlagEventDropCounts = FlagEventDropCounts()) throws {
        guard !events.isEmpty || !dropped.isEmpty else { return }
        let encoder = JSONEncoder()
        for event in events {
            let bytes = (try? encoder.encode(event).count) ?? 256
            contents.pending.append(Pending(event: event, bytes: bytes))
        }
        contents.dropped = contents.dropped + dropped
        enforceLimits()
        try save("append")
    }

    /// How many keys of ``append(_:once:)`` the queue remembers (64): the latest ones.
    public static let rememberedKeys = 64

    /// Whether events were appended under `key` (among the latest ``rememberedKeys``).
    public func hasAppended(once key: String) -> Bool {
        contents.onceKeys?.contains(key) ?? false
    }

    /// Appends `events` unless events were already appended under `key`, and remembers `key` in
    /// the same write: a process killed at any moment has either neither or both, so a report
    /// made again after a kill (the session health monitor's, whose marker file outlives the
    /// append until it is removed) is queued once. Returns whether it appended. The queue
    /// remembers the latest ``rememberedKeys`` keys.
    @discardableResult
    public func append(_ events: [FlagEvent], once key: String) throws -> Bool {
        guard !hasAppended(once: key) else { return false }
        let before = contents
        let encoder = JSONEncoder()
        for event in events {
            let bytes = (try? encoder.encode(event).count) ?? 256
            contents.pending.append(Pending(event: event, bytes: bytes))
        }
        var keys = contents.onceKeys ?? []
        keys.append(key)
        if keys.count > Self.rememberedKeys { keys.removeFirst(keys.count - Self.rememberedKeys) }
        contents.onceKeys = keys
        enforceLimits()
        do {
            try save("append")
        } catch {
            // Not on disk, so not appended: a later call under `key` tries again.
            contents = before
            throw error
        }
        return true
    }

    /// The batch to send next: the oldest formed one, or a new one made of the oldest pending
    /// events of one app (at most ``Limits/batchEvents`` and ``Limits/batchBytes``), carrying
    /// the drop counts not yet reported (a batch of drop counts alone, from `fallbackSource`, when
    /// nothing else waits). A new batch is saved before it is returned.
    ///
    /// Session health events (``FlagEventBatch/sessionHealthEventNames``) waiting go first, in a
    /// batch of their own that the server admits before others when it is busy: the evidence a
    /// guarded rollout decides on is not held back behind exposures.
    public func nextBatch(fallbackSource: FlagEventSource? = nil) throws -> FlagEventBatch? {
        if let first = contents.batches.first { return first }
        if let health = contents.pending.firstIndex(where: { Self.isSessionHealth($0.event) }) {
            let source = contents.pending[health].event.source
            return try form(source: source, taking: take(from: health) { Self.isSessionHealth($0) && $0.source == source })
        }
        guard let source = contents.pending.first?.event.source else {
            guard !contents.dropped.isEmpty else { return nil }
            // Only drops to report: an empty batch says so.
            return try form(source: fallbackSource, taking: [])
        }
        var taken = 0
        var bytes = 0
        for pending in contents.pending {
            guard pending.event.source == source, taken < limits.batchEvents else { break }
            guard taken == 0 || bytes + pending.bytes <= limits.batchBytes else { break }
            taken += 1
            bytes += pending.bytes
        }
        return try form(source: source, taking: Array(0..<taken))
    }

    /// The positions of pending events from `start` on that `belongs` to a batch, within the
    /// batch's limits.
    private func take(from start: Int, where belongs: (FlagEvent) -> Bool) -> [Int] {
        var taken: [Int] = []
        var bytes = 0
        for index in start..<contents.pending.count where taken.count < limits.batchEvents {
            let pending = contents.pending[index]
            guard belongs(pending.event) else { continue }
            guard taken.isEmpty || bytes + pending.bytes <= limits.batchBytes else { break }
            taken.append(index)
            bytes += pending.bytes
        }
        return taken
    }

    /// Whether `event` is one of the session health monitor's.
    static func isSessionHealth(_ event: FlagEvent) -> Bool {
        guard case .tracked(let tracked) = event else { return false }
        return FlagEventBatch.sessionHealthEventNames.contains(tracked.name)
    }

    /// Forms a batch of the pending events at `positions` (ascending), saves and returns it.
    private func form(source: FlagEventSource?, taking positions: [Int]) throws -> FlagEventBatch? {
        let source = source ?? FlagEventSource(appVersion: "", buildConfiguration: "", platform: FlagEventSource.currentPlatform)
        let batch = FlagEventBatch(
            batchId: makeID(), source: source, dropped: contents.dropped,
            events: positions.map { contents.pending[$0].event })
        if positions.last == positions.count - 1 {
            contents.pending.removeFirst(positions.count)
        } else {
            let chosen = Set(positions)
            contents.pending = contents.pending.enumerated().filter { !chosen.contains($0.offset) }.map(\.element)
        }
        contents.dropped = FlagEventDropCounts()
        contents.batches.append(batch)
        try save("form")
        return batch
    }

    /// Removes a batch the server accepted and saves; the backoff starts over.
    public func remove(batchId: String) throws {
        contents.batches.removeAll { $0.batchId == batchId }
        contents.failures = 0
        contents.notBefore = nil
        try save("remove")
    }

    /// Removes a batch the server refused for good (it would be refused again), counts its
    /// events and the drops it carried as dropped, and saves, in one write: a process killed
    /// at any moment either still has the batch or has its counts. The backoff starts over.
    public func drop(batchId: String) throws {
        guard let position = contents.batches.firstIndex(where: { $0.batchId == batchId }) else { return }
        let batch = contents.batches.remove(at: position)
        contents.dropped = contents.dropped + Self.counts(of: batch) + (batch.dropped ?? FlagEventDropCounts())
        contents.failures = 0
        contents.notBefore = nil
        try save("drop")
    }

    /// Replaces a batch the server found too large (413) by its two halves, each with a new id
    /// (the server accepted none of it). A batch of one event cannot be split: it is dropped and
    /// counted. Saves.
    public func split(batchId: String) throws {
        guard let position = contents.batches.firstIndex(where: { $0.batchId == batchId }) else { return }
        let batch = contents.batches[position]
        if batch.eventCount <= 1 {
            contents.batches.remove(at: position)
            contents.dropped = contents.dropped + Self.counts(of: batch) + (batch.dropped ?? FlagEventDropCounts())
        } else {
            let (first, second) = Self.halves(of: batch, ids: (makeID(), makeID()))
            contents.batches.replaceSubrange(position...position, with: [first, second])
        }
        try save("split")
    }

    /// Records a failed attempt and the moment before which no request may be made; saves.
    public func recordFailure(retryAt: Date, countingFailure: Bool = true) throws {
        if countingFailure { contents.failures += 1 }
        contents.notBefore = retryAt
        try save("failure")
    }

    // MARK: - Limits

    private func enforceLimits() {
        var events = eventCount
        var bytes = byteCount
        func over() -> Bool { events > limits.maximumEvents || bytes > limits.maximumBytes }
        guard over() else { return }
        mergeSummaries()
        events = eventCount
        bytes = byteCount
        // The oldest exposures and tracked events, then the oldest summaries, then batches.
        var kept: [Pending] = []
        for pending in contents.pending {
            if over(), !pending.event.isSummary {
                count(dropping: pending.event)
                events -= 1
                bytes -= pending.bytes
            } else {
                kept.append(pending)
            }
        }
        contents.pending = kept
        while over(), !contents.pending.isEmpty {
            let pending = contents.pending.removeFirst()
            count(dropping: pending.event)
            events -= 1
            bytes -= pending.bytes
        }
        while over(), !contents.batches.isEmpty {
            let batch = contents.batches.removeFirst()
            contents.dropped = contents.dropped + Self.counts(of: batch) + (batch.dropped ?? FlagEventDropCounts())
            events -= batch.eventCount
            bytes -= Self.size(of: batch)
        }
    }

    /// Merges the pending summaries of one flag, variant, reason and app into the first of them.
    private func mergeSummaries() {
        var merged: [Pending] = []
        struct SummaryKey: Hashable {
            var flag: String
            var variant: String?
            var reason: FlagReason
            var source: FlagEventSource
        }
        var positions: [SummaryKey: Int] = [:]
        for pending in contents.pending {
            guard case .summary(let summary) = pending.event else {
                merged.append(pending)
                continue
            }
            let key = SummaryKey(flag: summary.flag, variant: summary.variant, reason: summary.reason, source: summary.source)
            if let position = positions[key], case .summary(var existing) = merged[position].event {
                existing.merge(summary)
                merged[position].event = .summary(existing)
            } else {
                positions[key] = merged.count
                merged.append(pending)
            }
        }
        contents.pending = merged
    }

    private func count(dropping event: FlagEvent) {
        switch event {
        case .exposure: contents.dropped.exposures += 1
        case .summary: contents.dropped.summaries += 1
        case .tracked: contents.dropped.tracked += 1
        }
    }

    private static func counts(of batch: FlagEventBatch) -> FlagEventDropCounts {
        FlagEventDropCounts(exposures: batch.exposures.count, tracked: batch.events.count, summaries: batch.summaries.count)
    }

    static func halves(of batch: FlagEventBatch, ids: (String, String)) -> (FlagEventBatch, FlagEventBatch) {
        var first = batch
        var second = batch
        first.batchId = ids.0
        second.batchId = ids.1
        second.dropped = nil
        // Half of the events in each, kind by kind in order: exposures, summaries, tracked events.
        let half = batch.eventCount / 2
        let exposuresFirst = min(batch.exposures.count, half)
        let summariesFirst = min(batch.summaries.count, half - exposuresFirst)
        let trackedFirst = half - exposuresFirst - summariesFirst
        first.exposures = Array(batch.exposures.prefix(exposuresFirst))
        second.exposures = Array(batch.exposures.dropFirst(exposuresFirst))
        first.summaries = Array(batch.summaries.prefix(summariesFirst))
        second.summaries = Array(batch.summaries.dropFirst(summariesFirst))
        first.events = Array(batch.events.prefix(trackedFirst))
        second.events = Array(batch.events.dropFirst(trackedFirst))
        return (first, second)
    }

    static func size(of batch: FlagEventBatch) -> Int {
        (try? batch.encoded().count) ?? 0
    }

    private func save(_ change: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(contents)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let checkpoint = self.checkpoint
        try AtomicFile.write(data, to: url, beforeRename: { checkpoint?(change, "written") })
        checkpoint?(change, "renamed")
    }
}

extension FlagEvent {
    var isSummary: Bool {
        if case .summary = self { true } else { false }
    }
}
