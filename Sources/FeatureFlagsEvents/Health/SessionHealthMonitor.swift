import FeatureFlags
import Foundation
import Logging

/// Reports the app's health to the flag server as tracked events attributed to the variants each
/// session was served, so a rollout can be compared variant against variant on crashes and
/// errors: a session that did not end cleanly is reported at the next launch as `$crash`, one
/// that did as `$session`, and errors the app handled as `$error` (rate-limited).
///
/// ```swift
/// let health = SessionHealthMonitor(.init(directory: supportDirectory, source: source))
/// let recorder = FlagEventRecorder(.init(source: source, hooks: [health]))
/// let delivery = FlagEventDelivery(configuration: deliveryConfiguration, recorder: recorder)
/// await health.start(delivering: delivery)  // reports the previous session if it crashed
/// await delivery.start()
/// // … and when the session ends (on UIKit: `followAppLifecycle()` does both):
/// await health.endSession()
/// ```
///
/// A session begins when the monitor is made (and again at ``beginSession()``). ``start(delivering:)``
/// writes its *marker*, a small file `session-health-<id>.json` in ``Configuration/directory``,
/// holding the session's id, its start, the app (``FlagEventSource``) and the units and variants
/// it read. The monitor sees exposures as a ``FlagEventHook``: the first read of each variant of
/// a flag by a unit in the session appends one short line to the marker (one `write`, on the
/// reading thread), so a crash right after it is attributed to it; later reads cost nothing. The
/// marker is rewritten whole at delivery's flushes when lines were added (and at least every
/// ``Configuration/markerRefreshInterval``, which dates the session's last sign of life).
/// ``endSession()`` queues `$session` and removes the marker. A marker found at launch is a
/// session that did not end cleanly: `$crash`, attributed to every variant the session read
/// (a flag whose variant changed mid-session, to both), as `$session` is.
///
/// ``beginSession()`` also begins a session of the delivery's recorder
/// (``FlagEventRecorder/beginSession()``), so a session that begins in a process that has run
/// for hours still records the variants it reads.
///
/// Each report is queued in the delivery's queue with ``FlagEventDelivery/enqueue(_:once:)``
/// under the key `session:<id>`, in the same write as the key, before the marker is removed: a
/// process killed at any point of a report neither loses it (the marker stays until the events
/// are on disk) nor queues it twice (the key is on disk with them).
///
/// Apple platforms: `followAppLifecycle()` (UIKit) ends the session when the app enters the
/// background and begins one when it returns; `SessionHealthMetricKitSubscriber` turns
/// MetricKit's crash diagnostics into `$crash` events with ``reportCrashDiagnostics(_:)``.
public final class SessionHealthMonitor: FlagEventHook {
    /// Where the markers live, which app reports, and the bounds.
    public struct Configuration: Sendable {
        /// The directory of the markers: the event queue's, or one of the app's own (not shared
        /// with another process, such as an app extension: each would take the other's running
        /// session for a crashed one).
        public var directory: URL
        /// The app the events of a session come from; a crashed session is reported with the
        /// source it ran with (its marker's), so a crash before an update counts for the old version.
        public var source: FlagEventSource
        /// The most units a marker keeps (4, at most 16); past it the unit that read a new
        /// variant least recently is left out and counted (the reports carry `omitted`).
        public var maximumUnits: Int
        /// The most flags kept per unit (64, at most 256, the flag server's bound on an event's
        /// variants); past it further flags are left out and counted. A flag keeps up to 8
        /// variants per unit and session.
        public var maximumFlagsPerUnit: Int
        /// The longest the marker goes without being rewritten while the session runs (5 minutes):
        /// a crashed session's duration is known to within this and the flush interval.
        public var markerRefreshInterval: TimeInterval
        /// `$error` events allowed at once (10).
        public var errorBurst: Int
        /// One more `$error` is allowed per this interval (6 seconds: 10 a minute).
        public var errorInterval: TimeInterval
        /// The most `$error` events of one session (100).
        public var maximumErrorsPerSession: Int
        /// The clock sessions and markers are stamped with (injected by tests).
        public var now: @Sendable () -> Date
        /// The id of each new session (a UUID by default; letters, digits, `.`, `_`, `-`, at most 64).
        public var makeSessionID: @Sendable () -> String
        /// Where unreadable markers and dropped errors are reported (never values or identifiers).
        public var logger: Logger

        /// A configuration keeping markers in `directory`; every other setting has the default documented on its member.
        public init(
            directory: URL, source: FlagEventSource, maximumUnits: Int = 4, maximumFlagsPerUnit: Int = 64,
            markerRefreshInterval: TimeInterval = 300, errorBurst: Int = 10, errorInterval: TimeInterval = 6,
            maximumErrorsPerSession: Int = 100, now: @escaping @Sendable () -> Date = Date.init,
            makeSessionID: @escaping @Sendable () -> String = { UUID().uuidString },
            logger: Logger = Logger(label: "feature-flags.health")
        ) {
            self.directory = directory
            self.source = source
            self.maximumUnits = min(max(1, maximumUnits), SessionMarker.maximumUnits)
            self.maximumFlagsPerUnit = min(max(1, maximumFlagsPerUnit), SessionMarker.maximumFlagsPerUnit)
            self.markerRefreshInterval = max(0, markerRefreshInterval)
            self.errorBurst = max(1, errorBurst)
            self.errorInterval = max(0, errorInterval)
            self.maximumErrorsPerSession = max(1, maximumErrorsPerSession)
            self.now = now
            self.makeSessionID = makeSessionID
            self.logger = logger
        }
    }

    /// The event a session that did not end cleanly is reported as, at the next launch.
    public static let crashEventName = "$crash"
    /// The event a session that ended cleanly is reported as.
    public static let sessionEventName = "$session"
    /// The event of an error the app handled (``reportError(domain:code:)``).
    public static let errorEventName = "$error"
    /// The most markers reported by one ``start(delivering:)``; the others wait for the next launch.
    public static let maximumMarkersPerLaunch = 8

    static let markerPrefix = "session-health-"
    static let markerSuffix = ".json"

    /// Where markers live and how much a session records.
    public let configuration: Configuration

    struct Session {
        var id: String
        var start: Date
        /// What the session read so far, as its marker holds it (``SessionMarker/lastSeen`` is
        /// set when written).
        var content: SessionMarker
        /// Whether the marker's snapshot is behind `content` (lines were appended, or could not be).
        var changed = true
        var lastSaved: Date?
        var errors = 0

        init(id: String, start: Date, configuration: Configuration) {
            self.id = id
            self.start = start
            let milliseconds = SessionHealthMonitor.milliseconds(start)
            content = SessionMarker(
                session: id, start: milliseconds, lastSeen: milliseconds, source: configuration.source, units: [],
                omittedUnits: 0, omittedFlags: 0, maximumUnits: configuration.maximumUnits,
                maximumFlagsPerUnit: configuration.maximumFlagsPerUnit)
        }

        var units: [SessionMarker.UnitVariants] { content.units }
        var omitted: Int { content.omittedUnits + content.omittedFlags }
    }

    /// A crash reported from a marker at this launch, for matching MetricKit's diagnostics.
    struct ReportedCrash {
        var start: Date
        var reportedAt: Date
        var matched = false
    }

    struct State {
        var session: Session?
        var delivery: FlagEventDelivery?
        var errorEvents: [FlagEvent] = []
        var tokens: Double
        var refilled: Date
        var suppressedErrors = 0
        var reportedCrashes: [ReportedCrash] = []
        var pendingDiagnostics: [CrashDiagnostic] = []
        /// Keys of diagnostics found to be crashes a marker reported, so a repeat is skipped too.
        var absorbedDiagnostics: Set<String> = []
        var tail: Task<Void, Never>?
    }

    let state: Locked<State>
    /// Held while a marker file is written, appended to or removed; taken before `state`, never
    /// inside it.
    private let fileLock = Locked(SessionMarkerAppender())

    /// Begins a session in memory; ``start(delivering:)`` writes its marker.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        let now = configuration.now()
        state = Locked(
            State(
                session: Session(id: Self.validID(configuration.makeSessionID()), start: now, configuration: configuration),
                tokens: Double(configuration.errorBurst), refilled: now))
    }

    /// The current session's id, `nil` between ``endSession()`` and ``beginSession()``.
    public var sessionID: String? { state.withLock { $0.session?.id } }

    // MARK: - Exposures (FlagEventHook)

    /// Notes the variant in the current session and, the first time the session's unit reads
    /// it, appends a line saying so to the marker (one `write` of a few dozen bytes, on the
    /// thread of the read), so a crash right after the read is attributed to it. Exposures
    /// without a variant name nothing to compare and are not kept.
    public func didExpose(_ exposure: FlagExposure) {
        guard let variant = exposure.variant else { return }
        let maximumUnits = configuration.maximumUnits
        let maximumFlags = configuration.maximumFlagsPerUnit
        let time = Self.milliseconds(configuration.now())
        let appending = state.withLock { state -> (session: String, line: SessionMarker.Line)? in
            // In place: a copy of the session would copy its units to change them.
            guard
                let recorded = state.session?.content.record(
                    flag: exposure.flag, variant: variant, unit: exposure.unit, maximumUnits: maximumUnits,
                    maximumFlags: maximumFlags)
            else { return nil }
            if case .known = recorded { return nil }
            state.session?.changed = true
            // Before start(delivering:) there is no marker yet: its first write holds the read.
            guard state.delivery != nil, let id = state.session?.id else { return nil }
            if case .tooLong = recorded { return (id, SessionMarker.Line(o: 1, t: time)) }
            return (id, SessionMarker.Line(f: exposure.flag, v: variant, u: exposure.unit, t: time))
        }
        guard let appending else { return }
        let bytes = appending.line.bytes
        // Not appended (the marker is not open or is full): `changed` has the next flush write it.
        _ = fileLock.withLock { file in
            file.append(bytes, to: appending.session, limit: SessionMarker.maximumBytes)
        }
    }

    // MARK: - Sessions

    /// Reports what earlier launches left (a marker of a session that did not end cleanly is
    /// `$crash`, attributed to its units and variants; one whose end was recorded but not
    /// removed is `$session`; an unreadable or oversized one is `$crash` without variants, with
    /// `marker: "unreadable"`), then writes the current session's marker and lets `delivery`'s
    /// flushes carry `$error` events and update the marker. Call it once, early in the launch;
    /// later calls do nothing.
    @discardableResult
    public func start(delivering delivery: FlagEventDelivery) async -> SessionHealthReport {
        await serially { await self.startNow(delivering: delivery) }
    }

    /// Ends the current session cleanly: queues `$session` (its duration as the value, one event
    /// per unit it was served, with that unit's variants) and removes its marker. On UIKit
    /// platforms `followAppLifecycle()` calls it when the app enters the background: a suspended
    /// app may be ended by the system at any time without being told, which is not a crash.
    public func endSession() async {
        await serially { await self.endNow() }
    }

    /// Begins a new session (when the app returns to the foreground) and writes its marker;
    /// nothing when one is running.
    public func beginSession() async {
        await serially { self.beginNow() }
    }

    /// Registers the end of the session now, behind what was registered before; the task ends
    /// with it. For lifecycle callbacks that cannot wait: the order is the order of the calls.
    @discardableResult
    func scheduleEnd() -> Task<Void, Never> {
        enqueueSerially { await self.endNow() }
    }

    /// Registers the beginning of a session now (see ``scheduleEnd()``).
    @discardableResult
    func scheduleBegin() -> Task<Void, Never> {
        enqueueSerially { self.beginNow() }
    }

    private func startNow(delivering delivery: FlagEventDelivery) async -> SessionHealthReport {
        let current = state.withLock { state -> String? in
            guard state.delivery == nil else { return nil }
            state.delivery = delivery
            return state.session?.id ?? ""
        }
        guard let current else {
            return SessionHealthReport(session: sessionID, previous: [], problems: ["start(delivering:) was called before"])
        }
        await delivery.attach(self)
        var report = SessionHealthReport(session: current.isEmpty ? nil : current, previous: [], problems: [])
        // The current session's marker first, so its reads are on disk while older ones are reported.
        if !current.isEmpty { saveMarker(force: true) }
        let found = leftMarkers().filter { $0.lastPathComponent != Self.markerName(current) }
        if found.count > Self.maximumMarkersPerLaunch {
            report.problems.append(
                "\(found.count) session markers were left; \(Self.maximumMarkersPerLaunch) are reported now, the others at the next launch.")
        }
        for file in found.prefix(Self.maximumMarkersPerLaunch) {
            do {
                report.previous.append(try await reportMarker(file, delivery: delivery))
            } catch {
                let problem =
                    "Could not queue the report of \(file.lastPathComponent): \(error). The marker stays for the next launch."
                configuration.logger.warning("\(problem)")
                report.problems.append(problem)
            }
        }
        let diagnostics = state.withLock { state in
            defer { state.pendingDiagnostics = [] }
            return state.pendingDiagnostics
        }
        if !diagnostics.isEmpty { _ = await reportDiagnosticsNow(diagnostics, delivery: delivery) }
        return report
    }

    private func endNow() async {
        let now = configuration.now()
        let (ended, delivery) = state.withLock { state -> (Session?, FlagEventDelivery?) in
            guard state.delivery != nil else { return (nil, nil) }
            defer { state.session = nil }
            return (state.session, state.delivery)
        }
        guard let ended, let delivery else { return }
        let events = Self.events(
            named: Self.sessionEventName, session: ended.id, units: ended.units, omitted: ended.omitted,
            duration: now.timeIntervalSince(ended.start), attributes: [:], time: now, source: configuration.source)
        do {
            try await delivery.enqueue(events, once: Self.reportKey(ended.id))
        } catch {
            // The end stays on record in the marker, so the next launch reports a clean session.
            configuration.logger.warning("Could not queue the end of session \(ended.id): \(error).")
            var marker = makeMarker(of: ended, now: now)
            marker.end = Self.milliseconds(now)
            fileLock.withLock { file in
                file.close(ended.id)
                _ = try? write(marker)
            }
            return
        }
        fileLock.withLock { file in
            file.close(ended.id)
            removeMarker(of: ended.id)
        }
    }

    private func beginNow() {
        let delivery = state.withLock { state -> FlagEventDelivery? in
            guard state.session == nil else { return nil }
            let now = configuration.now()
            state.session = Session(
                id: Self.validID(configuration.makeSessionID()), start: now, configuration: configuration)
            return state.delivery
        }
        guard let delivery else { return }
        saveMarker(force: true)
        // The recorder forgets the previous session's exposures and the flags record each
        // variant again at its next read: this session's reads reach its marker.
        delivery.recorder.beginSession()
    }

    /// Writes the marker whole (its lines folded into the snapshot) when reads were added since
    /// it was written or it is older than ``Configuration/markerRefreshInterval``. Delivery calls
    /// it after each flush.
    func saveMarkerIfNeeded() {
        saveMarker(force: false)
    }

    private func saveMarker(force: Bool) {
        let now = configuration.now()
        let refresh = configuration.markerRefreshInterval
        fileLock.withLock { file in
            let marker = state.withLock { state -> SessionMarker? in
                guard state.delivery != nil, var session = state.session else { return nil }
                let due = session.lastSaved.map { now.timeIntervalSince($0) >= refresh || $0 > now } ?? true
                guard force || session.changed || due else { return nil }
                session.changed = false
                session.lastSaved = now
                state.session = session
                return self.makeMarker(of: session, now: now)
            }
            guard let marker else { return }
            do {
                let (url, bytes) = try write(marker)
                file.open(url, session: marker.session, bytes: bytes)
            } catch {
                configuration.logger.warning("Could not write the session marker of \(marker.session): \(error).")
                state.withLock { state in
                    if state.session?.id == marker.session { state.session?.changed = true }
                }
            }
        }
    }

    private func makeMarker(of session: Session, now: Date) -> SessionMarker {
        var marker = session.content
        marker.lastSeen = max(marker.start, Self.milliseconds(now))
        return marker
    }

    // MARK: - Reporting a marker

    private func reportMarker(_ file: URL, delivery: FlagEventDelivery) async throws -> SessionHealthReport.PreviousSession {
        let now = configuration.now()
        let nameID = Self.sessionID(fromMarkerName: file.lastPathComponent)
        let (marker, problem) = Self.readMarker(file)
        let key: String
        var previous: SessionHealthReport.PreviousSession
        let events: [FlagEvent]
        if let marker, marker.session == nameID || nameID == nil {
            key = Self.reportKey(marker.session)
            let start = Date(timeIntervalSince1970: Double(marker.start) / 1000)
            let omitted = marker.omittedUnits + marker.omittedFlags
            if let end = marker.end {
                previous = .init(id: marker.session, outcome: .endedCleanly, units: marker.units.count, queued: false)
                events = Self.events(
                    named: Self.sessionEventName, session: marker.session, units: marker.units, omitted: omitted,
                    duration: Double(end - marker.start) / 1000, attributes: [:], time: now, source: marker.source)
            } else {
                previous = .init(id: marker.session, outcome: .crashed, units: marker.units.count, queued: false)
                events = Self.events(
                    named: Self.crashEventName, session: marker.session, units: marker.units, omitted: omitted,
                    duration: Double(marker.lastSeen - marker.start) / 1000, attributes: ["detection": "marker"],
                    time: now, source: marker.source)
                state.withLock { $0.reportedCrashes.append(ReportedCrash(start: start, reportedAt: now)) }
            }
        } else {
            // Unreadable, oversized, out of bounds, or another session's content under this
            // name: a session did not end cleanly, and nothing of it can be trusted.
            let reason = problem ?? "the marker names session \(marker?.session ?? "?")"
            configuration.logger.warning("The session marker \(file.lastPathComponent) is unreadable (\(reason)); reported as a crash without variants.")
            key = nameID.map(Self.reportKey) ?? "session-file:\(Self.fnv1a(file.lastPathComponent))"
            previous = .init(id: nameID, outcome: .unreadable, units: 0, queued: false)
            var attributes: [String: FlagValue] = ["detection": "marker", "marker": "unreadable"]
            if let nameID { attributes["session"] = .string(nameID) }
            events = [
                .tracked(
                    TrackedFlagEvent(
                        name: Self.crashEventName, value: nil, attributes: attributes, unit: nil, variants: [:], time: now,
                        source: configuration.source))
            ]
            state.withLock { $0.reportedCrashes.append(ReportedCrash(start: .distantPast, reportedAt: now)) }
        }
        previous.queued = try await delivery.enqueue(events, once: key)
        fileLock.withLock { _ in
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                // Reported: the key in the queue keeps the next launch from reporting it again.
                configuration.logger.warning("Could not remove the session marker \(file.lastPathComponent): \(error).")
            }
        }
        return previous
    }

    // MARK: - Files

    /// The markers in the directory, sorted by name; temporary files of a write a killed
    /// process left are deleted.
    private func leftMarkers() -> [URL] {
        let directory = configuration.directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        var markers: [URL] = []
        for name in names.sorted() where name.hasPrefix(Self.markerPrefix) {
            let url = directory.appendingPathComponent(name)
            if name.contains(Self.markerSuffix + ".tmp-") {
                try? FileManager.default.removeItem(at: url)
            } else if name.hasSuffix(Self.markerSuffix) {
                markers.append(url)
            }
        }
        return markers
    }

    /// Writes `marker` as a snapshot, atomically; returns its file and size.
    @discardableResult
    private func write(_ marker: SessionMarker) throws -> (URL, Int) {
        let data = try marker.snapshot()
        let url = configuration.directory.appendingPathComponent(Self.markerName(marker.session))
        try AtomicFile.write(data, to: url)
        return (url, data.count)
    }

    private func removeMarker(of id: String) {
        let url = configuration.directory.appendingPathComponent(Self.markerName(id))
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            if FileManager.default.fileExists(atPath: url.path) {
                // Queued already: the key in the queue keeps the next launch from reporting it again.
                configuration.logger.warning("Could not remove the session marker of \(id): \(error).")
            }
        }
    }

    // MARK: - Helpers

    /// Runs `work` after every operation begun before it: a start, an end and a begin called
    /// in a row (from lifecycle callbacks) happen in that order.
    func serially<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> T {
        await enqueueSerially(work).value
    }

    /// Registers `work` behind every operation registered before it, now (synchronously), so the
    /// order is the order of the calls even when the caller does not wait.
    @discardableResult
    private func enqueueSerially<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> Task<T, Never> {
        state.withLock { state -> Task<T, Never> in
            let previous = state.tail
            let task = Task {
                await previous?.value
                return await work()
            }
            state.tail = Task { _ = await task.value }
            return task
        }
    }

    static func validID(_ id: String) -> String {
        SessionMarker.isValidID(id) ? id : "session-\(fnv1a(id))"
    }

    static func milliseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite, abs(value) < 9e15 else { return 0 }
        return Int64(value)
    }

    static func prefix(of text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            guard count + size <= bytes else { break }
            result.append(character)
            count += size
        }
        return result
    }

    /// A stable 64-bit FNV-1a hash of `text`, in hexadecimal: names a key for a file whose name
    /// holds no valid session id.
    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}

extension SessionHealthMonitor: FlagLifecycleResponder {
    /// Begins a new session (``beginSession()``).
    public func appWillEnterForeground() async {
        await beginSession()
    }

    /// Ends the session (``endSession()``) in a task of its own. On UIKit platforms prefer
    /// `followAppLifecycle()`, which finishes the end within the background time UIKit grants.
    public func appDidEnterBackground() {
        // Registered now, so a foreground that follows begins its session after this end.
        scheduleEnd()
    }
}
