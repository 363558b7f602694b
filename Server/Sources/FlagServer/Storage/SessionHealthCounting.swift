import FlagServerModel
import Foundation

/// Session-health events per variant of a flag, app version and platform, for insights (issue 39:
/// "insights show sessions and crashes per variant per version"). Both event stores implement it
/// from the raw tracked events (`…+SessionHealth.swift`), so it reaches back only as far as raw
/// events are kept (``EventRetention/rawDays``).
public protocol SessionHealthCounting: Sendable {
    /// Over the tracked events of `environment` with `time` in `from ..< to` (milliseconds since
    /// 1970): per variant of `flag` (read from each event's `variants`; "" for an event without
    /// one) and the app version and platform of the batch that carried it, how many are named in
    /// `sessions` and how many are named `crash`. At most `limit` groups, those with the most
    /// sessions first (ties by app version, platform and variant in byte order).
    func sessionHealth(
        environment: String, flag: String, sessions: [String], crash: String, from: Int64, to: Int64, limit: Int
    ) async throws(StoreError) -> [SessionHealthCount]
}

/// Sessions and crashes of one variant of a flag from one app version and platform.
public struct SessionHealthCount: Sendable, Hashable {
    /// The flag's variant the events named; "" when they named none.
    public var variant: String
    /// The app version the batches' source named ("" when apps sent none).
    public var appVersion: String
    /// The platform the batches' source named ("" when apps sent none).
    public var platform: String
    /// Events named as sessions (`$session` and `$crash`).
    public var sessions: Int
    /// Events named as crashes (`$crash`; each is also one of ``sessions``).
    public var crashes: Int

    /// A count as a store read it.
    public init(variant: String, appVersion: String, platform: String, sessions: Int, crashes: Int) {
        self.variant = variant
        self.appVersion = appVersion
        self.platform = platform
        self.sessions = sessions
        self.crashes = crashes
    }
}
