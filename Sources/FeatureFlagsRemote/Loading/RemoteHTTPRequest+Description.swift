import Foundation

/// A request prints its method and URL; header values and the body (an evaluation context)
/// print as `<REDACTED>`.
extension RemoteHTTPRequest: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "RemoteHTTPRequest(\(method.rawValue) \(url.absoluteString), headerFields: \(headerFields.redactedDescription), body: \(body == nil ? "nil" : redacted))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "method": method.rawValue, "url": url.absoluteString, "headerFields": headerFields.redactedMirror,
                "body": body == nil ? "nil" : redacted, "timeout": timeout,
            ], displayStyle: .struct)
    }
}
