/// Why loading remote values failed. Its message names keys and states, never values.
public struct RemoteLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. New codes may be added.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's name (`timedOut`, `unauthorized`, …).
        public let rawValue: String
        /// The code named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// 401 or 403: refreshing stopped until the app is set up again.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// 429: no request before the `Retry-After` moment.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// A 5xx response.
        public static let serverError = Code(rawValue: "serverError")
        /// Another unexpected status.
        public static let unexpectedStatus = Code(rawValue: "unexpectedStatus")
        /// No complete response within the request timeout.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The connection failed or broke off (a response cut off mid-body included).
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// A 200 whose `Content-Type` is not JSON (a captive portal, a proxy error page).
        public static let unexpectedContentType = Code(rawValue: "unexpectedContentType")
        /// A body larger than the configured maximum.
        public static let payloadTooLarge = Code(rawValue: "payloadTooLarge")
        /// The body is not valid JSON.
        public static let invalidJSON = Code(rawValue: "invalidJSON")
        /// Valid JSON, but not the expected schema.
        public static let schemaMismatch = Code(rawValue: "schemaMismatch")
        /// An `app_config` schema version this build does not understand.
        public static let unsupportedSchemaVersion = Code(rawValue: "unsupportedSchemaVersion")
        /// A redirect to another origin, or one too many (see ``RedirectPolicy``).
        public static let redirectRefused = Code(rawValue: "redirectRefused")
        /// Not sent: the loader is waiting out the backoff after a failure.
        public static let backingOff = Code(rawValue: "backingOff")
        /// A 304 with nothing cached to keep.
        public static let notModifiedWithoutCache = Code(rawValue: "notModifiedWithoutCache")
        /// An advertised event stream that is not followed (another origin, no usable URL), or
        /// one whose server refused or ended it for good.
        public static let eventStreamRefused = Code(rawValue: "eventStreamRefused")
    }

    /// The kind of failure.
    public let code: Code
    /// The HTTP status, when there was a response.
    public let statusCode: Int?
    /// One sentence saying what happened.
    public let message: String

    /// An error of `code`, with the HTTP status when there was one.
    public init(_ code: Code, statusCode: Int? = nil, message: String) {
        self.code = code
        self.statusCode = statusCode
        self.message = message
    }

    /// Whether a later attempt may succeed without anyone changing anything.
    public var isFatal: Bool { code == .unauthorized }

    /// The message.
    public var description: String { message }
}
