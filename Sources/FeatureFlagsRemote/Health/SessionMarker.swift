import FeatureFlags
import Foundation

/// What a session's marker file holds: which session, since when, which app, and the units and
/// variants it was served. Written by ``SessionHealthMonitor`` when a session begins and at
/// delivery's flushes, removed when the session ends cleanly; a marker found at launch is a
/// session that did not.
struct SessionMarker: Codable, Equatable, Sendable {
    /// The variants one unit was served, by flag key.
    struct UnitVariants: Codable, Equatable, Sendable {
        /// The targeting key; `nil` for anonymous evaluations.
        var unit: String?
        var variants: [String: String]
    }

    var version = 1
    /// The session's id (letters, digits, `.`, `_`, `-`; at most 64 bytes).
    var session: String
    /// When it began, in milliseconds since 1970.
    var start: Int64
    /// When the marker was last written, in milliseconds since 1970: the session was alive then.
    var lastSeen: Int64
    /// When it ended cleanly, if it did and the marker could not be removed.
    var end: Int64?
    var source: FlagEventSource
    /// The units, the one exposed to most recently last.
    var units: [UnitVariants]
    /// Units left out past ``SessionHealthMonitor/Configuration/maximumUnits``.
    var omittedUnits: Int
    /// Flags left out past ``SessionHealthMonitor/Configuration/maximumFlagsPerUnit`` (or with a
    /// key, variant or unit longer than the server takes).
    var omittedFlags: Int

    /// The most bytes of a marker file read; a larger one is unreadable.
    static let maximumBytes = 64 * 1024
    /// The most bytes of a flag key, variant, unit or source member: what the flag server takes.
    static let maximumStringBytes = 256
    /// The most units and flags per unit a marker may hold, whatever the configuration said: the
    /// flag server takes at most 256 variants on one event.
    static let maximumUnits = 16
    static let maximumFlagsPerUnit = 256

    /// Whether `id` may name a session (and a file).
    static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F
            }
    }

    static func fits(_ text: String) -> Bool {
        text.utf8.count <= maximumStringBytes
    }

    /// Why the marker cannot be reported as it stands, or `nil` when every member is within the
    /// bounds the flag server takes (so its events cannot get a batch refused).
    var problem: String? {
        guard version == 1 else { return "version \(version)" }
        guard Self.isValidID(session) else { return "a session id that is not 1 to 64 letters, digits, '.', '_' or '-'" }
        guard start <= lastSeen, end.map({ $0 >= start }) ?? true else { return "times out of order" }
        guard Self.fits(source.appVersion), Self.fits(source.buildConfiguration), Self.fits(source.platform) else {
            return "a source member longer than \(Self.maximumStringBytes) bytes"
        }
        guard units.count <= Self.maximumUnits, omittedUnits >= 0, omittedFlags >= 0 else { return "too many units" }
        for entry in units {
            guard entry.unit.map(Self.fits) ?? true, entry.variants.count <= Self.maximumFlagsPerUnit else {
                return "a unit too long or with too many flags"
            }
            for (flag, variant) in entry.variants where flag.isEmpty || !Self.fits(flag) || !Self.fits(variant) {
                return "a flag key or variant that is empty or too long"
            }
        }
        return nil
    }
}
