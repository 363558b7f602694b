import Foundation

/// A configuration prints everything but its secrets: header names show, their values
/// (credentials) print as `<REDACTED>`, and so does the OFREP evaluation context, in
/// `description`, `debugDescription` and `dump`.
extension RemoteConfigurationLoader.Configuration: CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The environment and its base URL, the source, the cache directory and the timings; never
    /// credentials or the evaluation context's values.
    public var description: String {
        "Configuration(environment: \(environment) \(environment.baseURL.absoluteString), source: \(source), cacheDirectory: \(cacheDirectory?.path ?? "nil"), defaultTTL: \(defaultTTL), requestTimeout: \(requestTimeout), maximumPayloadSize: \(maximumPayloadSize), headerFields: \(headerFields.redactedDescription), followsEventStreams: \(followsEventStreams))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the fields of ``description``, redacted alike.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "environment": "\(environment) \(environment.baseURL.absoluteString)",
                "source": source.description,
                "cacheDirectory": cacheDirectory?.path ?? "nil",
                "defaultTTL": defaultTTL,
                "requestTimeout": requestTimeout,
                "maximumPayloadSize": maximumPayloadSize,
                "headerFields": headerFields.redactedMirror,
                "followsEventStreams": followsEventStreams,
            ], displayStyle: .struct)
    }
}
