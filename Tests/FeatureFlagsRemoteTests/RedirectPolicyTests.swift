import FeatureFlags
import Foundation
import RemoteTestSupport
import Testing

@testable import FeatureFlagsRemote

struct RedirectPolicyTests {
    let policy = RedirectPolicy(maximumRedirects: 5)

    private func decide(_ from: String, _ to: String, after count: Int = 0) -> RedirectPolicy.Decision {
        policy.decision(from: URL(string: from)!, to: URL(string: to)!, redirectsSoFar: count)
    }

    @Test func redirectsWithinTheOriginAreFollowed() {
        #expect(decide("https://api.example.com/rpc/app_config", "https://api.example.com/v2/app_config") == .follow)
        #expect(decide("https://api.example.com/a", "https://API.example.com:443/b") == .follow)
        #expect(decide("http://127.0.0.1:8080/a", "http://127.0.0.1:8080/b?x=1") == .follow)
    }

    @Test(arguments: [
        "https://evil.example.net/rpc/app_config",  // another host
        "http://api.example.com/rpc/app_config",  // a downgrade to http
        "https://api.example.com:8443/rpc/app_config",  // another port
        "https://cdn.api.example.com/rpc/app_config",  // a subdomain is another origin
    ])
    func redirectsToAnotherOriginAreRefused(target: String) {
        guard case .refuse(let reason) = decide("https://api.example.com/rpc/app_config", target) else {
            Issue.record("Followed a redirect to \(target)")
            return
        }
        #expect(reason.contains("another origin"))
        #expect(!reason.contains("rpc/app_config"))
    }

    @Test func theNumberOfRedirectsIsBounded() {
        #expect(decide("https://a.example/x", "https://a.example/y", after: 4) == .follow)
        guard case .refuse(let reason) = decide("https://a.example/x", "https://a.example/y", after: 5) else {
            Issue.record("Followed a sixth redirect")
            return
        }
        #expect(reason.contains("more than 5"))
        #expect(RedirectPolicy(maximumRedirects: 0).decision(
            from: URL(string: "https://a.example/x")!, to: URL(string: "https://a.example/y")!, redirectsSoFar: 0)
            != .follow)
    }
}

/// Redirects and credentials through `URLSessionTransport`, against servers on loopback (two
/// ports are two origins).
struct RedirectTransportTests {
    static let credentials = ["Authorization": "Bearer s3cr3t-token", "X-Api-Key": "k3y-123"]

    @Test func aRedirectToAnotherOriginIsRefusedAndNoCredentialsReachIt() async throws {
        let other = try await TestHTTPServer.start { _ in .json(Payloads.appConfig()) }
        let target = other.baseURL.appendingPathComponent("rpc/app_config").absoluteString
        try await Fixture.run(.respond(status: 302, headers: [("Location", target)])) { fixture in
            let loader = fixture.loader(headerFields: Self.credentials)
            let start = fixture.clock.now
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .redirectRefused)
            #expect(error?.message.contains("another origin") == true)
            #expect(other.requestCount == 0)
            #expect(fixture.server.requestCount == 1)
            // A refused redirect is a failure like any other: backoff.
            #expect(loader.snapshot.nextRefreshAt == start.addingTimeInterval(2))
        }
        await other.shutdown()
    }

    @Test func aRedirectWithinTheOriginIsFollowedWithItsHeaders() async throws {
        try await Fixture.run(
            .respond(status: 307, headers: [("Location", "/v2/app_config")]), .json(Payloads.appConfig())
        ) { fixture in
            let loader = fixture.loader(headerFields: Self.credentials)
            let values = try await loader.loadFlags()
            #expect(values.values["cues.page_size"]?.value == 50)
            #expect(fixture.server.requests.map(\.path) == ["/rpc/app_config", "/v2/app_config"])
            #expect(fixture.server.requests.last?.headers["authorization"] == "Bearer s3cr3t-token")
        }
    }

    @Test func aRedirectLoopStopsAfterFiveRedirects() async throws {
        try await Fixture.run(.respond(status: 302, headers: [("Location", "/rpc/app_config")])) { fixture in
            let loader = fixture.loader()
            let error = await #expect(throws: RemoteLoadError.self) { try await loader.loadFlags() }
            #expect(error?.code == .redirectRefused)
            #expect(fixture.server.requestCount == 6)
        }
    }
}
