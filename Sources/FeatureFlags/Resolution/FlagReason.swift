/// Why a flag has its value, in the OpenFeature vocabulary (`STATIC`, `DEFAULT`, …).
///
/// Providers may add their own reasons; any string is allowed.
public struct FlagReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// A fixed value: build configuration, user preference or override.
    public static let `static`: FlagReason = "STATIC"
    /// The code default, because no other layer said anything.
    public static let `default`: FlagReason = "DEFAULT"
    /// A targeting rule matched.
    public static let targetingMatch: FlagReason = "TARGETING_MATCH"
    /// A percentage split chose the value.
    public static let split: FlagReason = "SPLIT"
    /// The flag is switched off: disabled, or turned off by a dependency or a conflict.
    public static let disabled: FlagReason = "DISABLED"
    /// The value came from a cache.
    public static let cached: FlagReason = "CACHED"
    /// The value came from a cache that is past its time to live.
    public static let stale: FlagReason = "STALE"
    /// The evaluation failed; the value is a fallback.
    public static let error: FlagReason = "ERROR"
    /// The provider gave no reason.
    public static let unknown: FlagReason = "UNKNOWN"

    public var description: String { rawValue }
}

/// What went wrong in an evaluation, in the OpenFeature vocabulary.
public enum FlagErrorCode: String, Sendable, Hashable, Codable, CustomStringConvertible {
    case flagNotFound = "FLAG_NOT_FOUND"
    case typeMismatch = "TYPE_MISMATCH"
    case parseError = "PARSE_ERROR"
    case providerNotReady = "PROVIDER_NOT_READY"
    case general = "GENERAL"

    public var description: String { rawValue }
}
