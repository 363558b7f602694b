import Foundation

/// A configuration prints everything but its secrets: header names show, their values
/// (credentials) print as `<REDACTED>`, and so does the OFREP evaluation context, in
/// `description`, `debugDescription` and `dump`.
extension RemoteConfigurationLoader.Configuration: CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public var description: String {
        "Configuration(environment: \(environment) \(environment.baseURL.absoluteString), source: \(source), cacheDirectory: \(cacheDirectory?.path ?? "nil"), defaultTTL: \(defaultTTL), requestTimeout: \(requestTimeout), maximumPayloadSize: \(maximumPayloadSize), headerFields: \(headerFields.redactedDescription), followsEventStreams: \(followsEventStreams))"
    }

    public var debugDescription: String { description }

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
