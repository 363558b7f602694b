import FeatureFlags
public import Logging

/// A log handler that keeps what is logged, so tests can check warnings.
///
/// ```swift
/// let log = RecordingLogHandler()
/// let flags = FeatureFlagManager<AppFlag>(logger: log.logger)
/// _ = flags.isEnabled(.chatViewRedesign)
/// #expect(log.messages(at: .warning).count == 1)
/// ```
public final class RecordingLogHandler: Sendable {
    /// One recorded message.
    public struct Entry: Sendable, Hashable {
        /// The level it was logged at.
        public let level: Logger.Level
        /// The message as logged.
        public let message: String
        /// Its metadata, each value as text.
        public let metadata: [String: String]
    }

    private let entries = Locked<[Entry]>([])

    /// A handler that has recorded nothing.
    public init() {}

    /// A logger that records into this handler, at `trace` level so nothing is filtered.
    public var logger: Logger {
        Logger(label: "feature-flags.recording") { _ in Handler(recorder: self) }
    }

    /// Everything recorded so far.
    public var recorded: [Entry] {
        entries.withLock { $0 }
    }

    /// Every entry as one line, `level message [metadata sorted by key]`, for checks that a key
    /// or a value does (or does not) appear anywhere in the logs.
    public var lines: [String] {
        recorded.map { entry in
            "\(entry.level) \(entry.message) \(entry.metadata.sorted { $0.key < $1.key })"
        }
    }

    /// The messages recorded at `level`.
    public func messages(at level: Logger.Level) -> [String] {
        recorded.filter { $0.level == level }.map(\.message)
    }

    fileprivate func record(_ entry: Entry) {
        entries.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let recorder: RecordingLogHandler
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            recorder.record(
                Entry(
                    level: event.level, message: "\(event.message)",
                    metadata: merged.mapValues { "\($0)" }))
        }
    }
}
