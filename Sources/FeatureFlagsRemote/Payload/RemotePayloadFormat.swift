/// A remote payload's wire format.
public enum RemotePayloadFormat: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The `app_config` document (see <doc:RemoteConfiguration>).
    case appConfig = "app_config"
    /// An OFREP bulk evaluation response.
    case ofrep

    /// The format's name.
    public var description: String { rawValue }
}
