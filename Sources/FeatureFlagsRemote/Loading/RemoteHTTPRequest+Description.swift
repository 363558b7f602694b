import Foundation

/// A request prints its method and URL; header values and the body (an evaluation context)
/// print as `<REDACTED>`.
extension RemoteHTTPRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The method and URL, with header values and the body as `<REDACTED>`.
    public var description: String {
        "RemoteHTTPRequest(\(method.rawValue) \(url.absoluteString), headerFields: \(headerFields.redactedDescription), body: \(body == nil ? "nil" : redacted))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// What `dump` shows: the method and URL, header values and body redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue, "url": url.absoluteString, "headerFields": headerFields.redactedMirror,
                "body": body == nil ? "nil" : redacted, "timeout": timeout,
            ], displayStyle: .struct)
    }
}
