/// What a flag does in one environment of the server.
public struct ServerFlagSettings: Sendable, Hashable, Codable {
    public var enabled: Bool
    public var defaultVariant: String

    public init(enabled: Bool, defaultVariant: String) {
        self.enabled = enabled
        self.defaultVariant = defaultVariant
    }
}
