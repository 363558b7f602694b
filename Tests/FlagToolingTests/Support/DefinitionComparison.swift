import FeatureFlags

/// The comparable fields of a definition (`FlagDefinition` holds a decoder closure and is not
/// `Equatable`).
struct DefinitionFields: Hashable {
    var key: String
    var type: FlagValueType
    var defaultValue: FlagValue
    var displayName: String
    var description: String
    var phase: Int?
    var owner: String?
    var removalTarget: String?
    var buildDefaults: [BuildConfiguration: FlagValue]
    var followsPhasePolicy: Bool
    var requires: [String]
    var conflicts: [String]
    var isUserTogglable: Bool
    var checking: CheckingMode
    var isSensitive: Bool

    init(_ definition: FlagDefinition) {
        key = definition.key
        type = definition.type
        defaultValue = definition.defaultValue
        displayName = definition.displayName
        description = definition.description
        phase = definition.phase
        owner = definition.owner
        removalTarget = definition.removalTarget
        buildDefaults = definition.buildDefaults
        followsPhasePolicy = definition.followsPhasePolicy
        requires = definition.requires
        conflicts = definition.conflicts
        isUserTogglable = definition.isUserTogglable
        checking = definition.checking
        isSensitive = definition.isSensitive
    }

}
