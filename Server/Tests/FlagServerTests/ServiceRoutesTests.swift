import FlagEvaluation
import FlagServer
import NIOHTTP1
import Testing

struct ServiceRoutesTests {
    @Test
    func metricsAreServedInPrometheusFormat() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let reply = try await server.request(.GET, "/metrics")
            #expect(reply.status == 200)
            #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true)
            // Two writes by the test (definition, settings); the first start's write came earlier.
            #expect(reply.body.contains("flag_server_revisions_total 3"))
            #expect(reply.body.contains("flag_server_event_streams 0"))
        }
    }

    @Test
    func healthNeedsNoToken() async throws {
        try await TestServer.with { server in
            let reply = try await server.request(.GET, "/health")
            #expect(reply.json == ["status": "ok"])
        }
    }
}
