/// Which development phases are switched on by default in which build configuration.
///
/// The default policy turns on phases 0–2 in debug builds; every other configuration uses the
/// flags' declared defaults. A flag that lists its own configurations with `enabledIn` is not
/// subject to the phase policy.
///
/// ```swift
/// let policy = PhasePolicy([.debug: 0...4, .alpha: 0...2])
/// ```
public struct PhasePolicy: Sendable, Hashable {
    /// The phases enabled by default, per configuration.
    public var enabledPhases: [BuildConfiguration: ClosedRange<Int>]

    /// A policy enabling each configuration's phases; a configuration not listed enables none.
    public init(_ enabledPhases: [BuildConfiguration: ClosedRange<Int>]) {
        self.enabledPhases = enabledPhases
    }

    /// Phases 0–2 on in debug builds; declared defaults everywhere else.
    public static let standard = PhasePolicy([.debug: 0...2])

    /// No phase rules: declared defaults everywhere.
    public static let none = PhasePolicy([:])

    /// Whether `phase` is switched on by default in `configuration`.
    public func enables(phase: Int, in configuration: BuildConfiguration) -> Bool {
        enabledPhases[configuration]?.contains(phase) ?? false
    }
}
