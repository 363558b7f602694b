/// Turns layer inputs into resolved values: layering, then dependencies and conflicts.
///
/// Precedence, lowest to highest: code default, build configuration (explicit per-configuration
/// defaults, then the phase policy), remote, user preference (user-togglable flags, by checking
/// mode), local override (where permitted).
///
/// Then, for Boolean flags:
/// 1. a flag that requires a flag that is off is off;
/// 2. of two conflicting flags that are both on, the one whose value came from the higher layer
///    stays on (an override beats a remote value, which beats a default); on a tie the flag
///    declared first stays on. The other is off;
/// 3. step 1 again, so flags that require a conflict's loser are off too.
enum FlagResolver {
    static func resolve(
        registry: FlagRegistry, inputs: ResolutionInputs, previous: ResolvedFlagTable? = nil
    ) -> ResolvedFlagTable {
        let count = registry.count
        var values: [FlagValue] = []
        var layers: [FlagLayer] = []
        values.reserveCapacity(count)
        layers.reserveCapacity(count)
        // Definitions through a buffer pointer: reading an `Array` element's field here copied
        // the whole definition (every reference in it retained and released).
        registry.definitions.withUnsafeBufferPointer { definitions in
            for index in 0..<count {
                let result = layered(
                    definition: definitions[index], index: index, inputs: inputs, checking: definitions[index].checking)
                values.append(result.value)
                layers.append(result.layer)
            }
        }

        var adjustments = [String?](repeating: nil, count: count)
        if !registry.dependencyOrder.isEmpty {
            applyDependencies(registry: registry, values: &values, adjustments: &adjustments)
            applyConflicts(registry: registry, values: &values, layers: layers, adjustments: &adjustments)
            applyDependencies(registry: registry, values: &values, adjustments: &adjustments)
        }

        var decoded = [(any Sendable)?](repeating: nil, count: count)
        registry.definitions.withUnsafeBufferPointer { definitions in
            for index in 0..<count {
                guard let decoder = definitions[index].decoder else { continue }
                if let previous, previous.values[index] == values[index] {
                    decoded[index] = previous.decoded[index]
                } else {
                    decoded[index] = decoder.decode(values[index])
                }
            }
        }
        return ResolvedFlagTable(
            registry: registry, inputs: inputs, values: values, layers: layers, adjustments: adjustments,
            decoded: decoded)
    }

    /// What each layer says for a flag, indexed by ``FlagLayer/rawValue``, before checking modes
    /// and permissions are applied. Values of the wrong type are already filtered out.
    static func layerValues(index: Int, registry: FlagRegistry, inputs: ResolutionInputs) -> [FlagValue?] {
        let definition = registry.definitions[index]
        return [
            definition.defaultValue,
            buildValue(definition: definition, inputs: inputs),
            inputs.remote[index]?.value,
            inputs.userPreferences[index],
            inputs.overrides[index],
        ]
    }

    /// Why a layer's value was not considered at all, or `nil` when it was.
    static func ignoredNote(layer: FlagLayer, index: Int, registry: FlagRegistry, inputs: ResolutionInputs) -> String? {
        let definition = registry.definitions[index]
        switch layer {
        case .userPreference:
            guard inputs.userPreferences[index] != nil else { return nil }
            if !definition.isUserTogglable { return "the flag is not user-togglable" }
            if definition.checking == .buildOnly { return "checking mode is buildOnly" }
            return nil
        case .override:
            guard inputs.overrides[index] != nil, !inputs.overridesPermitted else { return nil }
            return "overrides are not permitted in \(inputs.configuration?.rawValue ?? "an unconfigured manager")"
        default:
            return nil
        }
    }

    static func buildValue(definition: borrowing FlagDefinition, inputs: ResolutionInputs) -> FlagValue? {
        buildValue(
            buildDefaults: definition.buildDefaults, followsPhasePolicy: definition.followsPhasePolicy,
            type: definition.type, phase: definition.phase, inputs: inputs)
    }

    /// ``buildValue(definition:inputs:)`` from the fields it reads, read in place by the caller
    /// (see `FlagDefinition.accepting(_:type:range:check:isSensitive:)`).
    static func buildValue(
        buildDefaults: [BuildConfiguration: FlagValue], followsPhasePolicy: Bool, type: FlagValueType, phase: Int?,
        inputs: ResolutionInputs
    ) -> FlagValue? {
        guard let configuration = inputs.configuration else { return nil }
        if !buildDefaults.isEmpty, let value = buildDefaults[configuration] { return value }
        if followsPhasePolicy, type == .boolean, let phase, inputs.phasePolicy.enables(phase: phase, in: configuration)
        {
            return .bool(true)
        }
        return nil
    }

    /// One flag through the layers, before dependencies and conflicts.
    static func layered(
        index: Int, registry: FlagRegistry, inputs: ResolutionInputs, checking mode: CheckingMode
    ) -> (value: FlagValue, layer: FlagLayer) {
        registry.definitions.withUnsafeBufferPointer { definitions in
            layered(definition: definitions[index], index: index, inputs: inputs, checking: mode)
        }
    }

    @inline(__always)
    private static func layered(
        definition: borrowing FlagDefinition, index: Int, inputs: ResolutionInputs, checking mode: CheckingMode
    ) -> (value: FlagValue, layer: FlagLayer) {
        // Fields read once, in place: passing or using the whole definition across calls would
        // copy it.
        let type = definition.type
        let isUserTogglable = definition.isUserTogglable
        var value = definition.defaultValue
        var layer = FlagLayer.default
        if let build = buildValue(
            buildDefaults: definition.buildDefaults, followsPhasePolicy: definition.followsPhasePolicy, type: type,
            phase: definition.phase, inputs: inputs)
        {
            value = build
            layer = .buildConfiguration
        }
        if let remote = inputs.remote[index] {
            value = remote.value
            layer = .remote
        }
        if isUserTogglable, let preference = inputs.userPreferences[index] {
            switch (type, mode) {
            case (_, .buildOnly):
                break
            case (.boolean, .buildAndUser):
                if value == .bool(true), preference == .bool(false) {
                    value = .bool(false)
                    layer = .userPreference
                }
            default:
                value = preference
                layer = .userPreference
            }
        }
        if inputs.overridesPermitted, let override = inputs.overrides[index] {
            value = override
            layer = .override
        }
        return (value, layer)
    }

    private static func applyDependencies(registry: FlagRegistry, values: inout [FlagValue], adjustments: inout [String?]) {
        for index in registry.dependencyOrder where values[index] == .bool(true) {
            if let off = registry.requiredIndices[index].first(where: { values[$0] != .bool(true) }) {
                values[index] = .bool(false)
                let requiredKey = registry.definitions[off].key
                adjustments[index] =
                    "Off because it requires '\(requiredKey)', which is off. Turn '\(requiredKey)' on first."
            }
        }
    }

    private static func applyConflicts(
        registry: FlagRegistry, values: inout [FlagValue], layers: [FlagLayer], adjustments: inout [String?]
    ) {
        for index in 0..<registry.count where values[index] == .bool(true) {
            for other in registry.conflictingIndices[index] where other > index && values[other] == .bool(true) {
                let winner = layers[other] > layers[index] ? other : index
                let loser = winner == index ? other : index
                let why =
                    layers[winner] == layers[loser]
                    ? "both values come from the \(layers[winner]) layer and it is declared first"
                    : "its \(layers[winner]) value outranks this flag's \(layers[loser]) value"
                values[loser] = .bool(false)
                adjustments[loser] =
                    "Off because it conflicts with '\(registry.definitions[winner].key)', which stays on: \(why)."
                if loser == index { break }
            }
        }
    }
}
