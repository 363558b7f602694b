import FeatureFlags
import Foundation
import Logging

/// Publishes an app's resolved flags (values, layers, variants) to a file its extensions,
/// widgets and watch app read with ``SharedFlagReader``.
///
/// ```swift
/// let publisher = SharedFlagPublisher(flags: flags, file: SharedFlagsFile(appGroup: "group.com.example.app")!)
/// Task { await publisher.run() }            // publishes now, then after every change
/// _ = publisher.reloadWidgetTimelines(ofKinds: ["FlagsWidget"])   // WidgetKit platforms
/// ```
///
/// What is published is what the app reads: overrides, user preferences and remote values
/// included. A publication is written only when its flags differ from the file's, atomically, and
/// with a ``SharedFlagsFile/currentFormat`` and a revision one higher than the file's, so readers
/// compare revisions to see a change and ``changes()`` tells the app's own code (a widget
/// timeline reload) when one was written.
///
/// ## Sensitive flags
///
/// Flags marked `sensitive` are withheld by default: their keys are listed in the file, their
/// values are not, and readers get their code defaults. The file sits outside the app's sandbox,
/// in a container every app and extension of the App Group reads, and in device backups; the
/// project keeps sensitive values out of anything it does not need to hold them (logs,
/// descriptions, the debug menu). An app whose extension needs one passes
/// `sharingSensitiveValues: true`; readers still print such values as `<REDACTED>`.
///
/// The file is derived data, rebuilt from the app's state at every publication: an unreadable
/// or newer-format file is replaced (and the replacement logged), not moved aside.
public final class SharedFlagPublisher<Key: FeatureFlagKey>: Sendable {
    /// The file written.
    public let file: SharedFlagsFile
    /// Whether values of flags marked sensitive are written.
    public let sharesSensitiveValues: Bool
    private let flags: FeatureFlagManager<Key>
    private let logger: Logger
    private let now: @Sendable () -> Date

    /// The last publication, and the writes in progress. The lock also serializes writes, so an
    /// older publication never replaces a newer one; only publications wait on it.
    private let state = Locked(State())
    private let subscribers = Locked(Subscribers())

    private struct State: Sendable {
        /// What the file holds, once read or written by this publisher.
        var published: SharedFlagsFile.Contents?
    }

    private struct Subscribers: Sendable {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<SharedFlagsChange>.Continuation] = [:]
    }

    /// - Parameters:
    ///   - flags: The app's flags.
    ///   - file: Where to publish: `SharedFlagsFile(appGroup:)` on Apple platforms.
    ///   - sharingSensitiveValues: Whether to write values of flags marked sensitive (see
    ///     "Sensitive flags" above).
    ///   - logger: Where write failures go (keys and paths, never values).
    public convenience init(
        flags: FeatureFlagManager<Key>, file: SharedFlagsFile, sharingSensitiveValues: Bool = false,
        logger: Logger = Logger(label: "feature-flags.sharing")
    ) {
        self.init(
            flags: flags, file: file, sharingSensitiveValues: sharingSensitiveValues, logger: logger, now: { Date() })
    }

    /// The publisher with an injected clock, for tests.
    package init(
        flags: FeatureFlagManager<Key>, file: SharedFlagsFile, sharingSensitiveValues: Bool, logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.flags = flags
        self.file = file
        self.sharesSensitiveValues = sharingSensitiveValues
        self.logger = logger
        self.now = now
    }

    /// Publishes the app's current flags if they differ from the file's.
    ///
    /// - Returns: The change written, or `nil` when the file already held these flags.
    /// - Throws: The file system's error when the file cannot be written; the file is unchanged.
    @discardableResult
    public func publish() throws -> SharedFlagsChange? {
        try publish(flags.snapshot)
    }

    /// Publishes `snapshot` (one of these flags') if its flags differ from the file's.
    ///
    /// A snapshot taken before the flags were configured holds code defaults, not what the app
    /// will show: it is not published, so the previous launch's publication stays until the
    /// configured values replace it.
    @discardableResult
    public func publish(_ snapshot: FlagSnapshot<Key>) throws -> SharedFlagsChange? {
        guard snapshot.buildConfiguration != nil else { return nil }
        var entries: [String: SharedFlagsFile.Entry] = [:]
        var withheld: [String] = []
        for flag in snapshot.publishedFlags {
            if flag.isSensitive && !sharesSensitiveValues {
                withheld.append(flag.key)
            } else {
                entries[flag.key] = SharedFlagsFile.Entry(value: flag.value, layer: flag.layer, variant: flag.variant)
            }
        }
        let change = try state.withLock { state -> SharedFlagsChange? in
            let previous = state.published ?? readPublished()
            if let previous, previous.flags == entries, previous.withheld.sorted() == withheld.sorted(),
                previous.buildConfiguration == snapshot.buildConfiguration
            {
                state.published = previous
                return nil
            }
            let contents = SharedFlagsFile.Contents(
                revision: (previous?.revision ?? 0) &+ 1, publishedAt: now(),
                buildConfiguration: snapshot.buildConfiguration, flags: entries, withheld: withheld)
            try file.write(contents)
            state.published = contents
            var keys = Set(entries.keys)
            if let previous { keys.formUnion(previous.flags.keys) }
            let change = SharedFlagsChange(
                revision: contents.revision,
                changedKeys: keys.filter { previous?.flags[$0] != entries[$0] }.sorted())
            // Under the lock, so that streams see the revisions in order; a yield only enqueues.
            for continuation in subscribers.withLock({ Array($0.continuations.values) }) {
                continuation.yield(change)
            }
            return change
        }
        return change
    }

    /// The file's publication, when it is one this build reads; logs why it is not.
    private func readPublished() -> SharedFlagsFile.Contents? {
        switch file.read() {
        case nil: return nil
        case .success(let contents): return contents
        case .failure(.newerFormat(let found)):
            logger.notice(
                "The shared flags file has format \(found), newer than this build's \(SharedFlagsFile.currentFormat); replacing it.",
                metadata: ["path": "\(file.url.path)"])
        case .failure(.unreadable(let reason)):
            logger.warning(
                "The shared flags file was unreadable (\(reason)); replacing it.", metadata: ["path": "\(file.url.path)"])
        }
        return nil
    }

    /// Publishes now, then after every change of the flags, until the task is cancelled. Write
    /// failures are logged, and the next change tries again.
    public func run() async {
        for await snapshot in flags.updates() {
            do {
                try publish(snapshot)
            } catch {
                logger.error(
                    "Could not publish the flags to the shared file: \(error)", metadata: ["path": "\(file.url.path)"])
            }
        }
    }

    /// Runs `body` on the main actor for each publication written from now on, until the
    /// returned task is cancelled: what `reloadWidgetTimelines(ofKinds:)` does with WidgetKit.
    public func onEachChange(_ body: @escaping @MainActor @Sendable (SharedFlagsChange) -> Void) -> Task<Void, Never> {
        let changes = changes()
        return Task { @MainActor in
            for await change in changes { body(change) }
        }
    }

    /// The publications written from now on, one element per change (the newest kept when the
    /// consumer is slow); ends when the consumer stops.
    public func changes() -> AsyncStream<SharedFlagsChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: SharedFlagsChange.self, bufferingPolicy: .bufferingNewest(1))
        let id = subscribers.withLock { subscribers -> UInt64 in
            let id = subscribers.next
            subscribers.next += 1
            subscribers.continuations[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }
}
