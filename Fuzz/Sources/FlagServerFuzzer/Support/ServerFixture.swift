@_spi(Fuzzing) import FlagServer
import FlagEvaluation
import Foundation
import Logging

/// The state every input starts from: two environments, flags of several types with registry
/// metadata (`requires`, `conflicts`, a sensitive flag), a segment and a targeting rule using it.
enum ServerFixture {
    static let environments = ["production", "staging"]

    static let state: ServerState = {
        let changes: [StateChange] = [
            .createEnvironment("production"),
            .createEnvironment("staging"),
            .putFlag(
                FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false]),
                initialSettings: FlagSettings(enabled: false, defaultVariant: "off")),
            .putFlag(
                FlagRecord(
                    key: "theme", type: .string, variants: ["light": "light", "dark": "dark"],
                    metadata: FlagRecordMetadata(displayName: "Theme", owner: "web", phase: 1, requires: ["checkout"])),
                initialSettings: FlagSettings(enabled: true, defaultVariant: "light")),
            .putFlag(
                FlagRecord(
                    key: "page-size", type: .integer, variants: ["small": 10, "big": 100],
                    metadata: FlagRecordMetadata(conflicts: ["theme"])),
                initialSettings: FlagSettings(enabled: true, defaultVariant: "small")),
            .putFlag(
                FlagRecord(
                    key: "api-key", type: .string, variants: ["live": "sk-live-123"],
                    metadata: FlagRecordMetadata(sensitive: true)),
                initialSettings: FlagSettings(enabled: true, defaultVariant: "live")),
            .putSegment(
                environment: "production", key: "beta",
                rule: ["ends_with": [["var": "email"], "@beta.example"]]),
            .putSettings(
                environment: "production", flag: "checkout",
                FlagSettings(enabled: true, defaultVariant: "off", targeting: ["if": [["$ref": "beta"], "on", .null]])),
        ]
        do {
            let state = try ServerState().applying(changes).state
            let problems = StateValidator.problems(in: state)
            Invariant.require(problems.isEmpty, "the fixture state is invalid: \(problems)")
            return state
        } catch {
            Invariant.fail("the fixture state does not apply: \(error)")
        }
    }()

    /// The fixture's production environment, compiled as the server serves it.
    static let production: CompiledEnvironment = {
        guard let compiled = CompiledEnvironment(state: state, environment: "production", ttlSeconds: 60) else {
            Invariant.fail("the fixture's production environment does not compile")
        }
        return compiled
    }()

    /// Builds the fixture (the state, the compiled environment, one admin over it) once.
    static func prepare() {
        _ = ServerFixture.state
        _ = ServerFixture.production
        _ = ServerFixture.logger
        blocking { _ = await admin() }
    }

    static let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A `FlagAdmin` over an in-memory store holding the fixture state.
    static func admin() async -> (FlagAdmin, MemoryFlagStore) {
        let store = MemoryFlagStore(state)
        let admin = FlagAdmin(store: store, publisher: StatePublisher(ttlSeconds: 60), events: EventHub(), logger: logger)
        do {
            try await admin.reload()
        } catch {
            Invariant.fail("the fixture does not load: \(error)")
        }
        return (admin, store)
    }
}
