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
    public enum State: String, Sendable, Hashable, Decodable {
        case active, unused, settled, unknown
    }

    /// The unbroken run of one variant up to the day the evidence was computed.
    public struct Run: Sendable, Hashable, Decodable {
        public var variant: String
        /// The first day of the run (milliseconds since 1970, the start of a UTC day).
        public var since: Int64
        public var coversWindow: Bool
        public var appVersions: [String]
        public var evaluations: Int
        public var exposures: Int
        public var unitDays: Int

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

    public struct Flag: Sendable, Hashable, Decodable {
        public var flag: String
        public var state: State
        /// Why, one sentence from the server.
        public var reason: String
        public var lastEvaluated: Int64?
        public var evaluations: Int
        public var exposures: Int
        public var localEvaluations: Int
        public var run: Run?

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

    public var environment: String
    public var days: Int
    public var windowStart: Int64
    public var eventsEnabled: Bool
    public var flags: [Flag]

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
