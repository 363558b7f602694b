import FeatureFlags
import FlagManifest
import Logging

/// What a registry does: the resolved value of every flag in many situations, so tests compare
/// behaviour (not text) before and after a tool rewrites or regenerates a registry.
enum Behaviour {
    /// One situation: a build configuration, a phase policy, and at most one local override or
    /// user preference.
    struct Scenario: Hashable, CustomStringConvertible {
        var configuration: BuildConfiguration
        var everyPhaseEverywhere: Bool
        var override: [String: FlagValue] = [:]
        var preference: [String: FlagValue] = [:]

        var description: String {
            "\(configuration.rawValue)\(everyPhaseEverywhere ? " (every phase on)" : "")"
                + override.map { " override \($0.key)=\($0.value)" }.joined()
                + preference.map { " preference \($0.key)=\($0.value)" }.joined()
        }
    }

    /// The eight base situations: every configuration, under the standard phase policy and
    /// under one enabling every phase everywhere.
    static let baseScenarios: [Scenario] = BuildConfiguration.allCases.flatMap { configuration in
        [false, true].map { Scenario(configuration: configuration, everyPhaseEverywhere: $0) }
    }

    /// An engine for `definitions` in a base situation (overrides permitted everywhere).
    static func engine(_ definitions: [FlagDefinition], _ scenario: Scenario) throws -> FlagEngine {
        FlagEngine(
            registry: try FlagRegistry(definitions),
            setup: FlagSetup(
                buildConfiguration: scenario.configuration,
                phasePolicy: scenario.everyPhaseEverywhere
                    ? PhasePolicy(Dictionary(uniqueKeysWithValues: BuildConfiguration.allCases.map { ($0, 0...100) }))
                    : .standard,
                overridableConfigurations: Set(BuildConfiguration.allCases),
                logger: Logger(label: "behaviour", factory: { _ in SwiftLogNoOpLogHandler() })))
    }

    /// The value of every flag of `definitions`, by key, in a base situation.
    static func values(_ definitions: [FlagDefinition], in scenario: Scenario) throws -> [String: FlagValue] {
        let engine = try engine(definitions, scenario)
        return Dictionary(uniqueKeysWithValues: definitions.map { ($0.key, engine.value(forKey: $0.key) ?? .null) })
    }

    /// Runs `body` with the engines in every situation: each base scenario with nothing set, then
    /// with each Boolean flag of `keys` overridden on and off, and (if user-togglable in the
    /// first registry) set on and off as a user preference.
    static func forEachScenario(
        _ registries: [[FlagDefinition]], keys: [String], setting: [String]? = nil,
        _ body: (Scenario, [FlagEngine]) throws -> Void
    ) throws {
        let booleans = (setting ?? keys).filter { key in registries[0].first { $0.key == key }?.type == .boolean }
        let togglable = Set(registries[0].filter(\.isUserTogglable).map(\.key))
        for base in baseScenarios {
            let engines = try registries.map { try engine($0, base) }
            try body(base, engines)
            for key in booleans {
                for value in [true, false] {
                    for engine in engines { try engine.setOverride(.bool(value), forKey: key) }
                    var scenario = base
                    scenario.override = [key: .bool(value)]
                    try body(scenario, engines)
                    for engine in engines { try engine.setOverride(nil, forKey: key) }
                    guard togglable.contains(key) else { continue }
                    for engine in engines { try engine.setUserPreference(.bool(value), forKey: key) }
                    scenario = base
                    scenario.preference = [key: .bool(value)]
                    try body(scenario, engines)
                    for engine in engines { try engine.setUserPreference(nil, forKey: key) }
                }
            }
        }
    }

    /// The differences between two registries' values of the flags in `keys` (default: all of
    /// `before`'s) over every situation of ``forEachScenario(_:keys:setting:_:)`` (overrides and
    /// preferences of the flags in `setting`, default `keys`); empty when they behave alike.
    static func differences(
        _ before: [FlagDefinition], _ after: [FlagDefinition], keys: [String]? = nil, setting: [String]? = nil
    ) throws -> [String] {
        let keys = keys ?? before.map(\.key)
        var found: [String] = []
        try forEachScenario([before, after], keys: keys, setting: setting) { scenario, engines in
            for key in keys {
                let old = engines[0].value(forKey: key), new = engines[1].value(forKey: key)
                if old != new {
                    found.append("\(scenario): '\(key)' was \(old.map(String.init(describing:)) ?? "missing"), is \(new.map(String.init(describing:)) ?? "missing")")
                }
            }
        }
        return found
    }

    /// Whether `key` is on in some situation of ``forEachScenario(_:keys:setting:_:)``.
    static func canBeOn(_ key: String, _ definitions: [FlagDefinition], setting: [String]) throws -> Bool {
        var on = false
        try forEachScenario([definitions], keys: [key], setting: setting) { _, engines in
            if engines[0].value(forKey: key) == .bool(true) { on = true }
        }
        return on
    }
}
