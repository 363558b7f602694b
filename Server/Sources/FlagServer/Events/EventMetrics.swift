import FlagServerModel
import Prometheus
import Synchronization

/// The ingestion endpoint's series on `/metrics`:
///
/// - `flag_server_events_ingested_total{kind}`: events stored (`exposure`, `summary`, `tracked`);
///   a repeated batch adds nothing;
/// - `flag_server_event_batches_total{outcome}`: batches answered 2xx, `stored` or `duplicate`;
/// - `flag_server_event_batches_refused_total{reason}`: batches refused: `malformed` (400),
///   `too_large` (413), `invalid` (422), `idempotency_key` (422: the header and the batch id
///   differ), `store_failed` (503), `token_bytes` (429: the token's uploads held their share of
///   the byte budget), `timed_out` (408: the body did not arrive in time), `encoding` (415: a
///   `Content-Encoding` the server does not read);
/// - `flag_server_event_batches_shed_total`: requests shed (503) because the queue was full;
/// - `flag_server_event_ingest_duration_seconds`: each group's call to the event store;
/// - `flag_evaluations_total{environment, flag, variant}`: the reads apps counted in their
///   evaluation summaries. Each environment has series for at most
///   ``EventIngestionOptions/maximumEvaluationSeries`` flag and variant pairs, of flags it has;
///   the reads of any other pair are counted under `flag="__other__", variant="__other__"`, so
///   a client cannot grow `/metrics` without bound.
final class EventMetrics: Sendable {
    enum Refusal: String, CaseIterable {
        case malformed, tooLarge = "too_large", invalid, idempotencyKey = "idempotency_key", storeFailed = "store_failed"
        case tokenBytes = "token_bytes", timedOut = "timed_out", encoding
    }

    static let other = "__other__"

    private let registry: PrometheusCollectorRegistry
    private let ingested: [String: Counter]
    private let stored: Counter
    private let duplicates: Counter
    private let refused: [Refusal: Counter]
    let shed: Counter
    let ingestDuration: DurationHistogram
    private let maximumSeries: Int
    /// Whether an environment has a flag (pairs of unknown flags go under ``other``).
    private let knows: @Sendable (_ environment: String, _ flag: String) -> Bool
    /// The evaluation counters made so far, by environment, then flag and variant.
    private let evaluations = Mutex<[String: [FlagVariant: Counter]]>([:])

    private struct FlagVariant: Hashable {
        var flag: String
        var variant: String
    }

    init(
        registry: PrometheusCollectorRegistry, maximumSeries: Int,
        knows: @escaping @Sendable (_ environment: String, _ flag: String) -> Bool
    ) {
        self.registry = registry
        self.maximumSeries = maximumSeries
        self.knows = knows
        let ingestedName = MetricNameDescriptor.named("flag_server_events_ingested_total", help: "Events stored, by kind.")
        ingested = Dictionary(uniqueKeysWithValues: ["exposure", "summary", "tracked"].map {
            ($0, registry.makeCounter(descriptor: ingestedName, labels: [("kind", $0)]))
        })
        let batches = MetricNameDescriptor.named("flag_server_event_batches_total", help: "Event batches accepted, stored or duplicate.")
        stored = registry.makeCounter(descriptor: batches, labels: [("outcome", "stored")])
        duplicates = registry.makeCounter(descriptor: batches, labels: [("outcome", "duplicate")])
        let refusedName = MetricNameDescriptor.named("flag_server_event_batches_refused_total", help: "Event batches refused, by reason.")
        refused = Dictionary(uniqueKeysWithValues: Refusal.allCases.map {
            ($0, registry.makeCounter(descriptor: refusedName, labels: [("reason", $0.rawValue)]))
        })
        shed = registry.makeCounter(descriptor: .named(
            "flag_server_event_batches_shed_total", help: "Event batches shed (503) because the ingestion queue was full."))
        ingestDuration = registry.makeDurationHistogram(
            descriptor: .named(
                "flag_server_event_ingest_duration_seconds", help: "Each group commit's call to the event store."),
            buckets: [
                .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25),
                .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
                .seconds(5), .seconds(10),
            ])
    }

    func refused(_ reason: Refusal) { refused[reason]?.increment() }

    /// Counts the outcome of a group's call to the store.
    func committed(_ batches: [EventBatch], _ result: Result<[Bool], StoreError>, _ elapsed: Duration) {
        ingestDuration.record(elapsed)
        guard case .success(let outcomes) = result else {
            refused[.storeFailed]?.increment(by: Int64(batches.count))
            return
        }
        for (batch, new) in zip(batches, outcomes) {
            guard new else {
                duplicates.increment()
                continue
            }
            stored.increment()
            ingested["exposure"]?.increment(by: Int64(batch.exposures.count))
            ingested["summary"]?.increment(by: Int64(batch.summaries.count))
            ingested["tracked"]?.increment(by: Int64(batch.tracked.count))
            countEvaluations(batch)
        }
    }

    private func countEvaluations(_ batch: EventBatch) {
        guard !batch.summaries.isEmpty else { return }
        var sums: [FlagVariant: Int64] = [:]
        for summary in batch.summaries {
            sums[FlagVariant(flag: summary.flag, variant: summary.variant), default: 0] += Int64(summary.count)
        }
        let environment = batch.environment
        let counters = evaluations.withLock { table -> [(Counter, Int64)] in
            var known = table[environment] ?? [:]
            defer { table[environment] = known }
            return sums.map { pair, count in
                if let counter = known[pair] { return (counter, count) }
                let own = known.count - (known[FlagVariant(flag: Self.other, variant: Self.other)] == nil ? 0 : 1)
                let key = knows(environment, pair.flag) && own < maximumSeries
                    ? pair : FlagVariant(flag: Self.other, variant: Self.other)
                if let counter = known[key] { return (counter, count) }
                let counter = registry.makeCounter(
                    descriptor: .named(
                        "flag_evaluations_total",
                        help: "Flag reads apps counted in their evaluation summaries, by environment, flag and variant."),
                    labels: [("environment", environment), ("flag", key.flag), ("variant", key.variant)])
                known[key] = counter
                return (counter, count)
            }
        }
        for (counter, count) in counters { counter.increment(by: count) }
    }
}
