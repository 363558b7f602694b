import FlagEvaluation
import Foundation
import NIOHTTP1
import Testing

/// Every list of an environment answers 404 for an environment that does not exist (one well
/// formed, as ``ListPathKeyTests`` checks the malformed ones), with the same body: the rollout
/// and change-request lists answered `200 []`.
struct UnknownEnvironmentListTests {
    @Test(arguments: ["rollouts", "change-requests"])
    func aListOfAnEnvironmentThatDoesNotExistIs404LikeItsNeighbours(_ list: String) async throws {
        try await TestServer.withConsole(rolloutTickInterval: nil) { server in
            let known = try await server.request(.GET, "/admin/v1/environments/production/\(list)", token: server.adminToken)
            #expect(known.status == 200 && known.body == "[]")

            let reply = try await server.request(.GET, "/admin/v1/environments/nowhere/\(list)", token: server.adminToken)
            #expect(reply.status == 404)
            #expect(reply.json?["error"]?["message"]?.stringValue == #"environment "nowhere" does not exist"#)
            for neighbour in ["schedules", "flags"] {
                let other = try await server.request(.GET, "/admin/v1/environments/nowhere/\(neighbour)", token: server.adminToken)
                #expect(other.status == 404 && other.body == reply.body, "\(neighbour): \(other.status) \(other.body)")
            }
        }
    }
}
