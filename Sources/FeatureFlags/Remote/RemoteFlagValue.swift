/// One value from a remote provider.
public struct RemoteFlagValue: Sendable, Hashable {
    /// The value.
    public var value: FlagValue
    /// The variant name, when the provider has one (OFREP, flagd).
    public var variant: String?
    /// Why the provider chose the value.
    public var reason: FlagReason

    public init(_ value: FlagValue, variant: String? = nil, reason: FlagReason = .static) {
        self.value = value
        self.variant = variant
        self.reason = reason
    }
}

/// A set of values from a remote provider: what feeds the remote layer.
public struct RemoteFlagValues: Sendable, Hashable {
    /// The values by flag key.
    public var values: [String: RemoteFlagValue]
    /// Where they came from, for logs and the debug menu (`"app_config"`, `"cache"`…).
    public var source: String

    public init(_ values: [String: RemoteFlagValue] = [:], source: String = "remote") {
        self.values = values
        self.source = source
    }

    /// Values with one reason for all, from plain flag values.
    public init(values: [String: FlagValue], reason: FlagReason = .static, source: String = "remote") {
        self.values = values.mapValues { RemoteFlagValue($0, reason: reason) }
        self.source = source
    }

    /// No values.
    public static let empty = RemoteFlagValues()
}
