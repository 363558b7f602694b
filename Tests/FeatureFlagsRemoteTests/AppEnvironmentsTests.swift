import FeatureFlagsRemote
import FeatureFlagsTesting
import Foundation
import Logging
import Testing

/// Choosing an environment by name: known names, unknown names, and the caller's fallback.
struct AppEnvironmentsTests {
    let environments = AppEnvironments(
        dev: URL(string: "https://dev.example.com")!, stage: URL(string: "https://stage.example.com")!,
        prod: URL(string: "https://example.com")!, bundleIdentifier: "com.example", appVersion: "1.0", build: "7")

    @Test func knownNamesSelectTheirEnvironment() throws {
        #expect(try environments.environment(named: "dev").name == .dev)
        #expect(try environments.environment(named: "stage").name == .stage)
        #expect(try environments.environment(named: "prod").name == .prod)
    }

    @Test func anUnknownNameThrowsAnErrorListingTheKnownNames() {
        #expect(throws: UnknownEnvironmentError(name: "staging")) {
            try environments.environment(named: "staging")
        }
        #expect(
            "\(UnknownEnvironmentError(name: "staging"))"
                == "There is no environment named 'staging'. Known environments: dev, stage, prod.")
        #expect(UnknownEnvironmentError(name: "Prod").knownNames == ["dev", "stage", "prod"])
    }

    @Test func anOversizedNameIsShortenedInTheMessage() {
        let message = "\(UnknownEnvironmentError(name: String(repeating: "x", count: 10_000)))"
        #expect(message.count < 200)
        #expect(message.contains(String(repeating: "x", count: 64) + "…'"))
    }

    @Test func anUnknownNameFallsBackToTheCallersChoiceWithAWarning() {
        let log = RecordingLogHandler()
        let environment = environments.environment(named: "staging", fallback: .dev, logger: log.logger)
        #expect(environment.name == .dev)
        #expect(
            log.messages(at: .warning) == [
                "There is no environment named 'staging'. Known environments: dev, stage, prod. Using the fallback environment 'dev'."
            ])
    }

    @Test func aMissingNameFallsBackSilentlyAndAKnownNameWins() {
        let log = RecordingLogHandler()
        #expect(environments.environment(named: nil, fallback: .stage, logger: log.logger).name == .stage)
        #expect(environments.environment(named: "prod", fallback: .dev, logger: log.logger).name == .prod)
        #expect(log.recorded.isEmpty)
    }
}
