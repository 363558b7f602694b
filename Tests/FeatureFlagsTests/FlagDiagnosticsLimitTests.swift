import ExampleFlags
import FeatureFlags
import Testing

/// The engine keeps the newest `diagnosticsLimit` diagnostics, however many payloads arrive.
struct FlagDiagnosticsLimitTests {
    @Test func theOldestDiagnosticsAreDroppedAtTheLimit() {
        let engine = FlagEngine(registry: try! FlagRegistry(AppFlag.self), setup: FlagSetup(buildConfiguration: .release))
        let payloads = FlagEngine.diagnosticsLimit + 250
        for index in 0..<payloads {
            engine.receiveRemoteValues(RemoteFlagValues(values: ["ghost_\(index)": true]))
        }
        let diagnostics = engine.diagnostics
        #expect(diagnostics.count == FlagEngine.diagnosticsLimit)
        #expect(diagnostics.first?.key == "ghost_250")
        #expect(diagnostics.last?.key == "ghost_\(payloads - 1)")
    }
}
