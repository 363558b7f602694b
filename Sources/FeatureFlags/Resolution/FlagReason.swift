/// Why a flag has its value, in the OpenFeature vocabulary (`STATIC`, `DEFAULT`, …).
///
/// Providers may add their own reasons; any string is allowed.
public struct FlagReason: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The reason as OpenFeature spells it (`STATIC`, `TARGETING_MATCH`, …) or as a provider named it.
    public let rawValue: String

    /// The reason spelled `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The reason spelled as written.
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

    /// The reason as spelled.
    public var description: String { rawValue }
}

/// What went wrong in an evaluation, in the OpenFeature vocabulary.
public enum FlagErrorCode: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The provider does not know the flag.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The value is not of the flag's type.
    case typeMismatch = "TYPE_MISMATCH"
    /// The provider's payload or rule could not be read.
    case parseError = "PARSE_ERROR"
    /// The provider has no values yet.
    case providerNotReady = "PROVIDER_NOT_READY"
    /// Any other problem; the details' message says which.
    case general = "GENERAL"

    /// The code as OpenFeature spells it (`FLAG_NOT_FOUND`, …).
    public var description: String { rawValue }
}
