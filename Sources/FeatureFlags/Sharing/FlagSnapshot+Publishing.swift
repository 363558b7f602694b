/// One flag of a snapshot as another process needs it: what
/// `FeatureFlagsSharing`'s publisher writes to the App Group container.
package struct PublishedFlag: Sendable, Hashable {
    /// The flag's key.
    package let key: String
    /// The flag's value in the snapshot.
    package let value: FlagValue
    /// The remote provider's variant, when the remote layer won.
    package let variant: String?
    /// The layer the value came from.
    package let layer: FlagLayer
    /// Whether the value must never be shown or logged by the process that reads it.
    package let isSensitive: Bool
}

extension FlagSnapshot {
    /// Every flag of the snapshot (the enum's cases, then its typed values) in registry order,
    /// with the value the app reads, overrides and user preferences included. Costs one pass
    /// over the table: no layer reports are built.
    package var publishedFlags: [PublishedFlag] {
        var flags: [PublishedFlag] = []
        flags.reserveCapacity(table.count)
        for index in 0..<table.count {
            let definition = table.registry.definitions[index]
            let layer = table.layers[index]
            flags.append(
                PublishedFlag(
                    key: definition.key, value: table.values[index],
                    variant: layer == .remote ? table.inputs.remote[index]?.variant : nil, layer: layer,
                    isSensitive: definition.isSensitive))
        }
        return flags
    }
}
