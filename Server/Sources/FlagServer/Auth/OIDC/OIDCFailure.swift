import HTTPTypes

/// Why a single sign-on failed: a sentence for the person (no token contents, no stack trace)
/// and a reason for the log (never a credential, a code or a token).
struct OIDCFailure: Error, Sendable, CustomStringConvertible {
    /// Shown on the page.
    var message: String
    /// Logged.
    var reason: String
    var status: HTTPResponse.Status

    init(_ status: HTTPResponse.Status = .unauthorized, message: String, reason: String) {
        self.status = status
        self.message = message
        self.reason = reason
    }

    /// A refused ID token: the page says so, the log says why.
    static func token(_ reason: String) -> OIDCFailure {
        OIDCFailure(
            message: "The identity provider's answer could not be verified, so you are not signed in. Try again; if it keeps failing, tell the server's operator.",
            reason: "ID token refused: " + reason)
    }

    /// The provider could not be reached or answered something unusable.
    static func provider(_ reason: String) -> OIDCFailure {
        OIDCFailure(
            .badGateway,
            message: "The identity provider cannot be reached or gave an answer the console cannot use. Try again later; if it keeps failing, tell the server's operator.",
            reason: reason)
    }

    var description: String { reason }
}
