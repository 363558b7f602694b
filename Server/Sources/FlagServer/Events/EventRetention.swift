import Foundation
public import Logging
import ServiceLifecycle

/// How long the event store keeps what apps sent, and the task that deletes the rest: raw events
/// (exposures, tracked events, batch ids) for ``rawDays``, hourly rollups for ``hourlyDays``;
/// daily rollups and unit counts are kept. Every replica sweeps (deleting what another replica
/// deleted already deletes nothing).
public struct EventRetention: Sendable, Hashable {
    /// Days raw events are kept. Default 30.
    public var rawDays: Int = 30
    /// Days hourly rollups are kept. Default 14.
    public var hourlyDays: Int = 14
    /// How often the sweep runs (the first right at start). Default an hour.
    public var interval: Duration = .seconds(3600)

    /// Retention of `rawDays` days of raw events and `hourlyDays` days of hourly rollups, swept every `interval`.
    public init(rawDays: Int = 30, hourlyDays: Int = 14, interval: Duration = .seconds(3600)) {
        self.rawDays = rawDays
        self.hourlyDays = hourlyDays
        self.interval = interval
    }

    /// The cut-offs of a sweep at `now` (milliseconds since 1970): raw events received before
    /// `raw`, hourly buckets before `hourly`.
    public func cutoffs(now: Date) -> (raw: Int64, hourly: Int64) {
        let millisecondsNow = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        return (millisecondsNow - Int64(rawDays) * 86_400_000, millisecondsNow - Int64(hourlyDays) * 86_400_000)
    }

    /// Deletes what expired by `now`; the number of raw events deleted, or `nil` when the store
    /// failed (logged; the next sweep tries again).
    @discardableResult
    public func sweep(_ store: any FlagEventStore, now: Date, logger: Logger) async -> Int? {
        let (raw, hourly) = cutoffs(now: now)
        do {
            let deleted = try await store.deleteExpired(rawBefore: raw, hourlyBefore: hourly)
            if deleted > 0 {
                logger.info("deleted \(deleted) raw events older than \(rawDays) days", metadata: ["retention": "events"])
            }
            return deleted
        } catch {
            logger.warning("deleting expired events failed: \(error)", metadata: ["retention": "events"])
            return nil
        }
    }
}

/// Runs ``EventRetention/sweep(_:now:logger:)`` at start and then every interval, until a
/// graceful shutdown.
struct EventRetentionService: Service {
    let retention: EventRetention
    let store: any FlagEventStore
    let now: @Sendable () -> Date
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await retention.sweep(store, now: now(), logger: logger)
                do { try await Task.sleep(for: retention.interval) } catch { break }
            }
        }
    }
}
