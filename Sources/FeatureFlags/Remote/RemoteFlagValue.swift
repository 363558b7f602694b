/// One value from a remote provider.
///
/// It does not know whether its flag is sensitive, so its descriptions (`print`, `dump`, string
/// interpolation) show the value as `<REDACTED>`; read ``value`` to see it.
public struct RemoteFlagValue: Sendable, Hashable {
    /// The value.
    public var value: FlagValue
    /// The variant name, when the provider has one (OFREP, flagd).
    public var variant: String?
    /// Why the provider chose the value.
    public var reason: FlagReason

    /// A remote value, `STATIC` unless the provider gives another reason.
    public init(_ value: FlagValue, variant: String? = nil, reason: FlagReason = .static) {
        self.value = value
        self.variant = variant
        self.reason = reason
    }
}

/// A set of values from a remote provider: what feeds the remote layer.
///
/// Its descriptions (`print`, `dump`, string interpolation) list the keys and never the values,
/// which may belong to sensitive flags.
public struct RemoteFlagValues: Sendable, Hashable {
    /// The values by flag key.
    public var values: [String: RemoteFlagValue]
    /// Where they came from, for logs and the debug menu (`"app_config"`, `"cache"`…).
    public var source: String
    /// The unit the values were evaluated for (the evaluation context's targeting key), if
    /// any: exposures of these values are attributed to it, so that after a sign-out or sign-in
    /// each exposure names the unit it was served to.
    public var unit: String?
    /// The server's revision of the flags the values came from, if it said (an ETag, a
    /// revision number), carried into exposures.
    public var revision: String?

    /// A set of `values` from `source`, evaluated for `unit` at the server's `revision` when known.
    public init(
        _ values: [String: RemoteFlagValue] = [:], source: String = "remote", unit: String? = nil, revision: String? = nil
    ) {
        self.values = values
        self.source = source
        self.unit = unit
        self.revision = revision
    }

    /// Values with one reason for all, from plain flag values.
    public init(
        values: [String: FlagValue], reason: FlagReason = .static, source: String = "remote", unit: String? = nil,
        revision: String? = nil
    ) {
        self.values = values.mapValues { RemoteFlagValue($0, reason: reason) }
        self.source = source
        self.unit = unit
        self.revision = revision
    }

    /// No values.
    public static let empty = RemoteFlagValues()
}

extension RemoteFlagValue: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `RemoteFlagValue(<REDACTED>, variant: "on", reason: TARGETING_MATCH)`.
    public var description: String {
        var text = "RemoteFlagValue(<REDACTED>"
        if let variant { text += ", variant: \(FlagValue.string(variant).jsonString)" }
        return text + ", reason: \(reason))"
    }

    /// The same as ``description``: the value redacted.
    public var debugDescription: String { description }

    /// Keeps the value out of `dump` and debugger summaries.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": "<REDACTED>", "variant": variant as Any, "reason": reason])
    }
}

extension RemoteFlagValues: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `RemoteFlagValues(source: app_config, 2 values: dark_mode, page_size)`, keys sorted; the
    /// values are left out.
    public var description: String {
        let keys = values.keys.sorted()
        let shown = keys.prefix(20).joined(separator: ", ") + (keys.count > 20 ? ", …" : "")
        let count = keys.count == 1 ? "1 value" : "\(keys.count) values"
        return "RemoteFlagValues(source: \(source), \(count)\(keys.isEmpty ? "" : ": " + shown))"
    }

    /// The same as ``description``: keys only, never values.
    public var debugDescription: String { description }

    /// Keeps the values out of `dump` and debugger summaries.
    public var customMirror: Mirror {
        Mirror(self, children: ["source": source, "keys": values.keys.sorted()])
    }
}
