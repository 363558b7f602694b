import FeatureFlags
import FeatureFlagsTesting
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

/// Credentials and evaluation contexts print as `<REDACTED>` however they are printed.
struct RedactionTests {
    static let secrets = ["Bearer s3cr3t-token", "k3y-123", "user-8812", "premium-plus", "ca-north"]

    static let configuration = RemoteConfigurationLoader.Configuration(
        environment: Fixture.environment(URL(string: "https://flags.example.com")!),
        source: .ofrep(
            context: RemoteEvaluationContext(
                targetingKey: "user-8812", attributes: ["plan": "premium-plus", "region": "ca-north"])),
        cacheDirectory: nil,
        headerFields: ["Authorization": "Bearer s3cr3t-token", "X-Api-Key": "k3y-123"])

    private func printed(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), "\(value)", dumped]
    }

    private func expectRedacted(_ value: Any, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in printed(value) {
            for secret in Self.secrets {
                #expect(!text.contains(secret), "'\(secret)' printed in \(text)", sourceLocation: sourceLocation)
            }
            #expect(text.contains("<REDACTED>"), sourceLocation: sourceLocation)
        }
    }

    @Test func aConfigurationShowsHeaderNamesButNoCredentialsOrContext() {
        expectRedacted(Self.configuration)
        let text = "\(Self.configuration)"
        #expect(text.contains("Authorization: <REDACTED>"))
        #expect(text.contains("X-Api-Key: <REDACTED>"))
        #expect(text.contains("https://flags.example.com"))
    }

    @Test func anEvaluationContextAndASourceAreRedacted() {
        guard case .ofrep(let context) = Self.configuration.source else { return }
        expectRedacted(context)
        expectRedacted(Self.configuration.source)
        #expect("\(context)".contains("plan: <REDACTED>"))
    }

    @Test func aRequestShowsItsURLButNoHeaderValuesOrBody() {
        let request = RemoteHTTPRequest(
            method: .post, url: URL(string: "https://flags.example.com/ofrep/v1/evaluate/flags")!,
            headerFields: Self.configuration.headerFields,
            body: Data(#"{"context": {"targetingKey": "user-8812"}}"#.utf8))
        expectRedacted(request)
        #expect("\(request)".contains("POST https://flags.example.com/ofrep/v1/evaluate/flags"))
    }

    @Test func theLoaderLogsNoCredentials() async throws {
        try await Fixture.run(.respond(status: 500)) { fixture in
            let loader = fixture.loader(headerFields: Self.configuration.headerFields)
            _ = try? await loader.loadFlags()
            let logs = fixture.logs.lines.joined(separator: "\n")
            #expect(!logs.isEmpty)
            for secret in Self.secrets { #expect(!logs.contains(secret)) }
        }
    }
}
