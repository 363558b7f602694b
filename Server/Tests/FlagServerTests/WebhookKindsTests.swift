import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// Every kind of notification the server sends can be subscribed to by name, and the OpenAPI
/// document offers exactly those (`schedule.failed` was sent but refused as a kind).
struct WebhookKindsTests {
    @Test
    func theOfferedKindsAreTheDocumentedOnesAndIncludeEverySentKind() async throws {
        let sent: [ServerNotification.Kind] = [
            .flagChanged, .killSwitch, .scheduleCreated, .scheduleUpdated, .scheduleCancelled, .scheduleRan, .scheduleHeld,
            .scheduleMissed, .scheduleFailed, .rolloutStepped, .rolloutPaused, .rolloutRolledBack, .rolloutFinished,
            .changeRequestOpened, .changeRequestApproved, .changeRequestRejected, .changeRequestApplied, .experimentStarted,
            .experimentStopped, .experimentShipped, .ping,
        ]
        #expect(Set(ServerNotification.Kind.all) == Set(sent))
        try await TestServer.with { server in
            let document = try #require(try await server.request(.GET, "/openapi.json").json)
            let offered = document["components"]?["schemas"]?["WebhookBody"]?["properties"]?["kinds"]?["items"]?["enum"]?.arrayValue
            #expect(offered?.compactMap(\.stringValue) == ServerNotification.Kind.all.map(\.rawValue))
            let created = try await server.request(
                .POST, "/admin/v1/webhooks", token: server.adminToken,
                body: #"{"url": "https://hooks.example.com/x", "kinds": ["schedule.failed", "experiment.shipped"]}"#)
            #expect(created.status == 201, "\(created.body)")
            #expect(created.json?["kinds"] == ["schedule.failed", "experiment.shipped"], "\(created.body)")
        }
    }
}
