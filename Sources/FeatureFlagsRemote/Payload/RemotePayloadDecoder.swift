import FeatureFlags
import Foundation

/// A payload decoded and checked against a registry.
public struct DecodedRemotePayload: Sendable, Hashable {
    /// The values that fit the registry, normalised to their flags' types.
    public var values: [String: RemoteFlagValue]
    /// The values left out, by key, in key order.
    public var ignored: [IgnoredRemoteValue]
    /// The payload's own time-to-live hint (`ttlSeconds` in `app_config`), if any, held to
    /// ``RemoteDurationLimits/timeToLive`` (at most 7 days).
    public var ttl: TimeInterval?
    /// Flags the server deferred to their code defaults (OFREP entries without a value).
    public var deferredToDefault: [String]
    /// The change-notification streams an OFREP bulk response advertises (`eventStreams`), at
    /// most 8, in the server's order.
    public var eventStreams: [RemoteEventStream]

    /// A decoded payload; the time to live is the server's, when it gave one.
    public init(
        values: [String: RemoteFlagValue], ignored: [IgnoredRemoteValue] = [], ttl: TimeInterval? = nil,
        deferredToDefault: [String] = [], eventStreams: [RemoteEventStream] = []
    ) {
        self.values = values
        self.ignored = ignored
        self.ttl = ttl
        self.deferredToDefault = deferredToDefault
        self.eventStreams = eventStreams
    }
}

/// Decodes `app_config` and OFREP payloads and validates them against a registry.
///
/// A payload that is not JSON, or not the format's schema, throws and is rejected whole. Inside
/// a valid payload, a value for an unknown key or of the wrong type is left out and reported by
/// key in ``DecodedRemotePayload/ignored``; the rest is kept.
///
/// ```swift
/// let decoded = try RemotePayloadDecoder.decode(data, format: .appConfig, registry: registry)
/// ```
///
/// This is the whole cost of applying a fresh payload before the manager resolves it, so it is
/// what a benchmark of "apply a changed payload" measures.
public enum RemotePayloadDecoder {
    /// The `app_config` schema versions this build reads.
    public static let supportedAppConfigVersions: ClosedRange<Int> = 1...1

    /// Decodes `data` in `format` and keeps the values that fit `registry`.
    ///
    /// - Throws: ``RemoteLoadError`` with code `invalidJSON`, `schemaMismatch` or
    ///   `unsupportedSchemaVersion`.
    public static func decode(
        _ data: Data, format: RemotePayloadFormat, registry: FlagRegistry
    ) throws(RemoteLoadError) -> DecodedRemotePayload {
        let root: FlagValue
        do {
            root = try FlagValue(jsonData: data)
        } catch {
            // The parser says where and why (a duplicate key, a number out of range), by line
            // and column; bounded, as the reason may quote a member name.
            throw RemoteLoadError(
                .invalidJSON, message: "The \(format) payload is not valid JSON (\(String(describing: error).prefix(200))).")
        }
        switch format {
        case .appConfig: return try decodeAppConfig(root, registry: registry)
        case .ofrep: return try decodeOFREP(root, registry: registry)
        }
    }

    // MARK: - app_config

    private static func decodeAppConfig(
        _ root: FlagValue, registry: FlagRegistry
    ) throws(RemoteLoadError) -> DecodedRemotePayload {
        guard case .object(let members) = root else {
            throw mismatch(.appConfig, "the document is not a JSON object")
        }
        guard let version = members["schemaVersion"]?.intValue else {
            throw mismatch(.appConfig, "'schemaVersion' is missing or not an integer")
        }
        guard supportedAppConfigVersions.contains(version) else {
            let supported = supportedAppConfigVersions
            let readable =
                supported.lowerBound == supported.upperBound
                ? "schemaVersion \(supported.lowerBound)" : "schemaVersion \(supported.lowerBound) to \(supported.upperBound)"
            throw RemoteLoadError(
                .unsupportedSchemaVersion,
                message:
                    "The app_config payload has schemaVersion \(version); this build reads \(readable) only. Update the app or serve a compatible version."
            )
        }
        var sections: [[String: FlagValue]] = []
        for name in ["flags", "config"] {
            switch members[name] {
            case nil, .null?: continue
            case .object(let section)?: sections.append(section)
            default: throw mismatch(.appConfig, "'\(name)' is not a JSON object")
            }
        }
        guard !sections.isEmpty else {
            throw mismatch(.appConfig, "it has neither 'flags' nor 'config'")
        }
        var ttl: TimeInterval?
        switch members["ttlSeconds"] {
        case nil, .null?: break
        case let value?:
            guard let seconds = value.doubleValue, seconds >= 0, seconds.isFinite else {
                throw mismatch(.appConfig, "'ttlSeconds' is not a non-negative number")
            }
            ttl = RemoteDurationLimits.clamp(seconds, to: RemoteDurationLimits.timeToLive)
        }

        var values: [String: RemoteFlagValue] = [:]
        values.reserveCapacity(sections.reduce(0) { $0 + $1.count })
        var ignored: [IgnoredRemoteValue] = []
        for section in sections {
            for (key, value) in section {
                switch validate(value, forKey: key, registry: registry) {
                case .success(let normalized): values[key] = RemoteFlagValue(normalized, reason: .static)
                case .failure(let reason): ignored.append(IgnoredRemoteValue(key: key, reason: reason))
                }
            }
        }
        ignored.sort { $0.key < $1.key }
        return DecodedRemotePayload(values: values, ignored: ignored, ttl: ttl)
    }

    // MARK: - OFREP

    private static func decodeOFREP(
        _ root: FlagValue, registry: FlagRegistry
    ) throws(RemoteLoadError) -> DecodedRemotePayload {
        guard case .object(let members) = root, case .array(let entries)? = members["flags"] else {
            throw mismatch(.ofrep, "it has no 'flags' array")
        }
        var values: [String: RemoteFlagValue] = [:]
        values.reserveCapacity(entries.count)
        var ignored: [IgnoredRemoteValue] = []
        var deferred: [String] = []
        for entry in entries {
            guard case .object(let fields) = entry, case .string(let key)? = fields["key"] else {
                ignored.append(IgnoredRemoteValue(key: "", reason: .malformedEntry))
                continue
            }
            if case .string(let errorCode)? = fields["errorCode"] {
                ignored.append(IgnoredRemoteValue(key: key, reason: .evaluationFailed(errorCode: errorCode)))
                continue
            }
            guard let value = fields["value"] else {
                // OFREP's code-default entry: the server defers to the app's default.
                if registry.index(ofKey: key) != nil {
                    deferred.append(key)
                } else {
                    ignored.append(IgnoredRemoteValue(key: key, reason: .unknownKey))
                }
                continue
            }
            switch validate(value, forKey: key, registry: registry) {
            case .success(let normalized):
                values[key] = RemoteFlagValue(
                    normalized,
                    variant: fields["variant"]?.stringValue,
                    reason: fields["reason"]?.stringValue.map(FlagReason.init(rawValue:)) ?? .unknown)
            case .failure(let reason):
                ignored.append(IgnoredRemoteValue(key: key, reason: reason))
            }
        }
        ignored.sort { $0.key < $1.key }
        return DecodedRemotePayload(
            values: values, ignored: ignored, deferredToDefault: deferred.sorted(),
            eventStreams: eventStreams(members["eventStreams"]))
    }

    /// The advertised event streams. Streams are optional, so entries that don't read (not an
    /// object, no `type`, over-long strings) are skipped rather than failing the payload.
    private static func eventStreams(_ value: FlagValue?) -> [RemoteEventStream] {
        guard case .array(let entries)? = value else { return [] }
        func string(_ value: FlagValue?) -> String? {
            guard case .string(let text)? = value, text.utf8.count <= RemoteEventStream.maximumStringLength else {
                return nil
            }
            return text
        }
        return entries.prefix(RemoteEventStream.maximumCount).compactMap { entry in
            guard case .object(let fields) = entry, let type = string(fields["type"]) else { return nil }
            var endpoint: [String: FlagValue] = [:]
            if case .object(let members)? = fields["endpoint"] { endpoint = members }
            let delay = fields["inactivityDelaySec"]?.doubleValue.flatMap { $0.isFinite && $0 >= 1 ? $0 : nil }
            return RemoteEventStream(
                type: type, url: string(fields["url"]), origin: string(endpoint["origin"]),
                requestURI: string(endpoint["requestUri"]),
                inactivityDelay: delay.map { RemoteDurationLimits.clamp($0, to: RemoteDurationLimits.inactivityDelay) })
        }
    }

    // MARK: - Validation

    private enum Validation {
        case success(FlagValue)
        case failure(IgnoredRemoteValue.Reason)
    }

    private static func validate(_ value: FlagValue, forKey key: String, registry: FlagRegistry) -> Validation {
        guard let index = registry.index(ofKey: key) else { return .failure(.unknownKey) }
        let type = registry.definitions[index].type
        guard let normalized = value.normalized(to: type) else { return .failure(.typeMismatch(expected: type)) }
        return .success(normalized)
    }

    private static func mismatch(_ format: RemotePayloadFormat, _ detail: String) -> RemoteLoadError {
        RemoteLoadError(.schemaMismatch, message: "The \(format) payload is not in the \(format) schema: \(detail).")
    }
}
