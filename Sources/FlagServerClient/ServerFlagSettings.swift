/// What a flag does in one environment of the server.
public struct ServerFlagSettings: Sendable, Hashable, Codable {
    /// Whether the flag is on in the environment.
    public var enabled: Bool
    /// The variant served when targeting does not decide.
    public var defaultVariant: String

    /// Settings of a flag in one environment.
    public init(enabled: Bool, defaultVariant: String) {
        self.enabled = enabled
        self.defaultVariant = defaultVariant
    }
}
