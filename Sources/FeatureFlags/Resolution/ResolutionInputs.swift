/// What the layers above the code default say, by registry position; the input of one
/// resolution.
struct ResolutionInputs: Sendable {
    /// The running build configuration, or `nil` before the manager is configured.
    var configuration: BuildConfiguration?
    var phasePolicy: PhasePolicy
    /// Whether local overrides apply in this configuration.
    var overridesPermitted: Bool
    var remote: [RemoteFlagValue?]
    var remoteSource: String?
    /// The unit and revision the remote values were served for (``RemoteFlagValues/unit``).
    var remoteUnit: String?
    var remoteRevision: String?
    var userPreferences: [FlagValue?]
    var overrides: [FlagValue?]

    init(count: Int, configuration: BuildConfiguration? = nil, phasePolicy: PhasePolicy = .standard) {
        self.configuration = configuration
        self.phasePolicy = phasePolicy
        self.overridesPermitted = false
        self.remote = Array(repeating: nil, count: count)
        self.userPreferences = Array(repeating: nil, count: count)
        self.overrides = Array(repeating: nil, count: count)
    }
}
