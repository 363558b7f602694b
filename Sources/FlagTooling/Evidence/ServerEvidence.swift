import FlagServerClient
import Foundation

/// What a flag server's events say about removing each flag of one environment: the answer of
/// `GET /admin/v1/environments/{environment}/evidence`, read by `flags lint`, `flags refs` and
/// `flags remove` (`--server` or `--evidence FILE`).
///
/// A flag is `unused` when nothing evaluated it for the window's days, `settled` when one variant
/// was served to every unit for those days on every app version still sending, `active`
/// otherwise, and `unknown` when the server keeps no events or has not kept them long enough.
/// The server's documentation gives the exact rules.
public struct ServerEvidence: Sendable, Hashable, Decodable {
    /// What the evidence says about removing the flag.
    public enum State: String, Sendable, Hashable, Decodable {
        /// Active, unused, settled or unknown, by the server's rules.
        case active, unused, settled, unknown
    }

    /// The unbroken run of one variant up to the day the evidence was computed.
    public struct Run: Sendable, Hashable, Decodable {
        /// The variant served throughout the run.
        public var variant: String
        /// The first day of the run (milliseconds since 1970, the start of a UTC day).
        public var since: Int64
        /// Whether the run reaches back to the window's start without anything else served.
        public var coversWindow: Bool
        /// The app versions served in the run, sorted.
        public var appVersions: [String]
        /// The variant's evaluations on the run's days.
        public var evaluations: Int
        /// The variant's exposures on the run's days.
        public var exposures: Int
        /// Distinct units per day on the run's days, added over the days.
        public var unitDays: Int

        /// A run as the server answers it.
        public init(
            variant: String, since: Int64, coversWindow: Bool, appVersions: [String], evaluations: Int, exposures: Int, unitDays: Int
        ) {
            self.variant = variant
            self.since = since
            self.coversWindow = coversWindow
            self.appVersions = appVersions
            self.evaluations = evaluations
            self.exposures = exposures
            self.unitDays = unitDays
        }
    }

    /// The evidence of one flag.
    public struct Flag: Sendable, Hashable, Decodable {
        /// The flag's key.
        public var flag: String
        /// What the evidence says about removing it.
        public var state: State
        /// Why, one sentence from the server.
        public var reason: String
        /// The newest summary or exposure the server received for the flag (milliseconds since 1970).
        public var lastEvaluated: Int64?
        /// The window's evaluations, served and local.
        public var evaluations: Int
        /// The window's exposures, served and local.
        public var exposures: Int
        /// The window's evaluations and exposures of a local value (code default, build value, override).
        public var localEvaluations: Int
        /// The newest served variant's unbroken run; `nil` when nothing was served in the window.
        public var run: Run?

        /// A flag's evidence as the server answers it.
        public init(
            flag: String, state: State, reason: String, lastEvaluated: Int64? = nil, evaluations: Int = 0, exposures: Int = 0,
            localEvaluations: Int = 0, run: Run? = nil
        ) {
            self.flag = flag
            self.state = state
            self.reason = reason
            self.lastEvaluated = lastEvaluated
            self.evaluations = evaluations
            self.exposures = exposures
            self.localEvaluations = localEvaluations
            self.run = run
        }
    }

    /// The environment whose events were read.
    public var environment: String
    /// How many whole days before today the window reaches back.
    public var days: Int
    /// The start of the window (milliseconds since 1970, the start of a UTC day).
    public var windowStart: Int64
    /// Whether the server keeps events at all; without, every flag is unknown.
    public var eventsEnabled: Bool
    /// Every flag's evidence, in key order.
    public var flags: [Flag]

    /// Evidence as the server answers it.
    public init(environment: String, days: Int, windowStart: Int64, eventsEnabled: Bool = true, flags: [Flag]) {
        self.environment = environment
        self.days = days
        self.windowStart = windowStart
        self.eventsEnabled = eventsEnabled
        self.flags = flags
    }

    /// The evidence of `key`, when the server named it.
    public subscript(key: String) -> Flag? {
        flags.first { $0.flag == key }
    }

    /// The largest evidence file read (`--evidence`): the server's answer for ten thousand flags
    /// is a few megabytes.
    public static let maximumFileBytes = 32 << 20

    /// Reads a saved answer of the evidence endpoint.
    ///
    /// - Throws: ``ToolingError`` (invalid input) naming the file and what is wrong with it.
    public static func load(path: String) throws(ToolingError) -> ServerEvidence {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ToolingError(.invalidInput, "Cannot read the evidence file \(path).")
        }
        guard data.count <= maximumFileBytes else {
            throw ToolingError(.invalidInput, "The evidence file \(path) is \(data.count) bytes; at most \(maximumFileBytes) are read.")
        }
        do {
            return try JSONDecoder().decode(ServerEvidence.self, from: data)
        } catch let error as DecodingError {
            throw ToolingError(
                .invalidInput,
                "\(path) is not an answer of GET /admin/v1/environments/{environment}/evidence: \(FlagServerClient.describe(error)).")
        } catch {
            throw ToolingError(.invalidInput, "\(path) is not JSON: \(error).")
        }
    }

    /// `2026-11-03` (UTC) of a time in milliseconds since 1970.
    public static func day(_ time: Int64) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(time) / 1000)
        return ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC")!, formatOptions: [.withFullDate])
    }

    /// The evidence of one flag in words, for a finding or a plan: `settled in production: every
    /// unit was served "on" for 30 days, since 2026-10-27, on app versions 2.0, 2.1 (1200
    /// evaluations, 80 exposures, 400 unit-days)`.
    public func sentence(for flag: Flag) -> String {
        switch flag.state {
        case .settled:
            guard let run = flag.run else { return "settled in \(environment): \(flag.reason)" }
            var text = "settled in \(environment): every unit was served \"\(run.variant)\" for \(days) days, since \(Self.day(run.since)), on app version\(run.appVersions.count == 1 ? "" : "s") \(Self.versions(run.appVersions))"
            text += " (\(run.evaluations) evaluations, \(run.exposures) exposures, \(run.unitDays) unit-days"
            if flag.localEvaluations > 0 { text += "; \(flag.localEvaluations) reads of a local value" }
            return text + ")"
        case .unused:
            let last = flag.lastEvaluated.map { "last evaluated \(Self.day($0))" } ?? "never evaluated since the server began taking events"
            return "unused in \(environment): nothing evaluated it for \(days) days (\(last))"
        case .active:
            return "active in \(environment): \(flag.reason)"
        case .unknown:
            return "unknown in \(environment): \(flag.reason)"
        }
    }

    static func versions(_ versions: [String]) -> String {
        versions.map { $0.isEmpty ? "(unnamed)" : $0 }.joined(separator: ", ")
    }
}

extension FlagServerClient {
    /// The removal evidence of every flag of `environment` over `days` days
    /// (`GET /admin/v1/environments/{environment}/evidence?days=N`).
    public func evidence(environment: String, days: Int) throws(ToolingError) -> ServerEvidence {
        let path = "/admin/v1/environments/\(Self.pathComponent(environment))/evidence?days=\(days)"
        let data = try call("GET", path, purpose: .read(environment: environment))
        return try decode(ServerEvidence.self, data, from: "GET \(path)")
    }
}
