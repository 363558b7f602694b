/// The result of one resolution: every flag's value, winning layer and reason, plus the inputs
/// needed to explain them. Immutable; shared by snapshots.
@usableFromInline
final class ResolvedFlagTable: Sendable {
    let registry: FlagRegistry
    let inputs: ResolutionInputs
    @usableFromInline
    let values: [FlagValue]
    let layers: [FlagLayer]
    /// Set when a dependency or conflict turned a flag off.
    let adjustments: [String?]
    /// Decoded Swift values of `object` flags that declare a decoder.
    let decoded: [(any Sendable)?]

    init(
        registry: FlagRegistry, inputs: ResolutionInputs, values: [FlagValue], layers: [FlagLayer],
        adjustments: [String?], decoded: [(any Sendable)?]
    ) {
        self.registry = registry
        self.inputs = inputs
        self.values = values
        self.layers = layers
        self.adjustments = adjustments
        self.decoded = decoded
    }

    var count: Int { values.count }

    /// The flag's value with the given checking mode instead of its declared one (Boolean,
    /// user-togglable flags). Dependencies and conflicts keep their effect.
    func boolValue(at index: Int, checking mode: CheckingMode) -> Bool {
        guard adjustments[index] == nil else { return false }
        return FlagResolver.layered(index: index, registry: registry, inputs: inputs, checking: mode).value.boolValue
            ?? false
    }

    /// Why the flag has its value (the reason of ``details(at:)``).
    func reason(at index: Int) -> FlagReason {
        if adjustments[index] != nil { return .disabled }
        if inputs.configuration == nil { return .default }
        switch layers[index] {
        case .default: return .default
        case .remote: return inputs.remote[index]?.reason ?? .unknown
        case .buildConfiguration, .userPreference, .override: return .static
        }
    }

    /// The server's variant name of the flag's value, when the value is the remote one.
    func variant(at index: Int) -> String? {
        layers[index] == .remote ? inputs.remote[index]?.variant : nil
    }

    /// The full explanation of one flag.
    func details(at index: Int) -> FlagEvaluationDetails {
        let definition = registry.definitions[index]
        let sensitive = definition.isSensitive
        let winner = layers[index]
        let said = FlagResolver.layerValues(index: index, registry: registry, inputs: inputs)
        var reports: [FlagLayerReport] = []
        for layer in FlagLayer.allCases {
            let status: FlagLayerReport.Status
            let value = said[layer.rawValue]
            if let note = FlagResolver.ignoredNote(layer: layer, index: index, registry: registry, inputs: inputs) {
                status = .ignored(note)
            } else if layer == winner {
                status = .selected
            } else if value == nil {
                status = .unset
            } else if layer > winner {
                status = .ignored("the result is \(definition.shown(values[index]))")
            } else {
                status = .shadowed
            }
            reports.append(FlagLayerReport(layer: layer, value: value, status: status, isSensitive: sensitive))
        }

        let reason = self.reason(at: index)
        var errorCode: FlagErrorCode?
        var message = adjustments[index]
        if message == nil, inputs.configuration == nil {
            errorCode = .providerNotReady
            message = "The feature flags were read before they were configured; this is the code default."
        }
        return FlagEvaluationDetails(
            key: definition.key, value: values[index],
            variant: winner == .remote ? inputs.remote[index]?.variant : nil,
            layer: winner, reason: reason, errorCode: errorCode, message: message, layers: reports,
            isSensitive: sensitive)
    }
}
