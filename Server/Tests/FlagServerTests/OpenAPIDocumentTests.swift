import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Real responses of every documented operation, validated against the served OpenAPI document
/// by `scripts/tools/validate_responses.py` (openapi-spec-validator and openapi-schema-validator), and
/// request bodies checked both ways: what the document allows is accepted, what it refuses is
/// answered 4xx with a JSON error naming the field, and the stored state stays as it was.
struct OpenAPIDocumentTests {
    struct Recorder {
        var entries: [JSONValue] = []

        mutating func call(
            _ server: TestServer, _ method: HTTPMethod, _ template: String, _ path: String, token: String?,
            body: String? = nil, headers: [(String, String)] = []
        ) async throws -> TestServer.Reply {
            let reply = try await server.request(method, path, token: token, body: body, headers: headers)
            let request = body.flatMap { try? JSONValue(parsing: $0) }
            entries.append([
                "path": .string(template), "method": .string(method.rawValue.lowercased()), "status": .int(reply.status),
                "body": reply.body.isEmpty ? .null : (reply.json ?? .string(reply.body)),
                "request": request ?? .null, "requestNotJSON": .bool(body != nil && request == nil),
            ])
            return reply
        }
    }

    @Test
    func realResponsesMatchTheServedDocument() async throws {
        let directory = TemporaryDirectory().path
        try await TestServer.with { server in
            var r = Recorder()
            let admin = server.adminToken
            let document = try await server.request(.GET, "/openapi.json")
            #expect(document.status == 200)
            try document.body.write(toFile: directory + "/openapi.json", atomically: true, encoding: .utf8)

            _ = try await r.call(server, .GET, "/health", "/health", token: nil)
            _ = try await r.call(server, .GET, "/health/live", "/health/live", token: nil)
            _ = try await r.call(server, .GET, "/health/ready", "/health/ready", token: nil)
            _ = try await r.call(server, .GET, "/admin/v1/environments", "/admin/v1/environments", token: admin)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": "qa"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": "qa"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/environments", "/admin/v1/environments", token: admin, body: #"{"key": 1}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"owner": "payments"}}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/bad", token: admin,
                body: #"{"type": "boolean", "variants": {"on": 1}}"#)
            _ = try await r.call(server, .GET, "/admin/v1/flags", "/admin/v1/flags", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags?dryRun=true", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on"}]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true, "off": false}, "defaultVariant": "on"}]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/flags", "/admin/v1/flags", token: admin,
                body: #"{"flags": [{"key": "search", "type": "boolean", "variants": {"on": true}, "defaultVariant": "maybe"}]}"#)
            _ = try await r.call(server, .GET, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/flags/{key}", "/admin/v1/flags/ghost", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/segments/{key}", "/admin/v1/environments/production/segments/beta",
                token: admin, body: #"{"rule": {"starts_with": [{"var": "email"}, "beta"]}}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/segments", "/admin/v1/environments/production/segments", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/flags/{key}/settings",
                "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"if": [{"$ref": "beta"}, "off", null]}}"#)
            _ = try await r.call(
                server, .PATCH, "/admin/v1/environments/{environment}/flags/{key}/settings",
                "/admin/v1/environments/production/flags/checkout/settings", token: admin, body: #"{"enabled": false, "reason": "kill"}"#)
            _ = try await r.call(
                server, .PATCH, "/admin/v1/environments/{environment}/flags/{key}/settings",
                "/admin/v1/environments/production/flags/checkout/settings", token: admin, body: #"{"enabled": true}"#)
            _ = try await r.call(
                server, .PATCH, "/admin/v1/environments/{environment}/flags/{key}/settings",
                "/admin/v1/environments/production/flags/checkout/settings", token: admin, body: #"{"enabled": null}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/flags", "/admin/v1/environments/production/flags", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/flags/{key}",
                "/admin/v1/environments/production/flags/checkout", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/revert",
                "/admin/v1/environments/production/flags/checkout/revert", token: admin, body: #"{"revision": 2}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/validate",
                "/admin/v1/environments/production/flags/checkout/validate", token: admin,
                body: #"{"enabled": true, "defaultVariant": "maybe", "targeting": {"nope": [1]}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/preview",
                "/admin/v1/environments/production/flags/checkout/preview", token: admin,
                body: #"{"percentages": {"on": 10, "off": 90}, "targetingKeys": ["a", "b"]}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/preview",
                "/admin/v1/environments/production/flags/checkout/preview", token: admin, body: #"{"percentages": {"on": 10}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/copy",
                "/admin/v1/environments/staging/flags/checkout/copy", token: admin, body: #"{"from": "production", "reason": "same as prod"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/copy",
                "/admin/v1/environments/staging/flags/checkout/copy", token: admin, body: #"{"from": "nowhere"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/evaluate", "/admin/v1/environments/production/evaluate",
                token: admin, body: #"{"context": {"targetingKey": "u1", "email": "beta@x"}}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/evaluate", "/admin/v1/environments/production/evaluate",
                token: admin, body: #"{"context": {"targetingKey": 7}}"#)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/revisions", "/admin/v1/environments/production/revisions", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/audit", "/admin/v1/environments/production/audit", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/export", "/admin/v1/environments/production/export", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/import", "/admin/v1/environments/staging/import?dryRun=true",
                token: admin, body: #"{"flags": {}}"#)
            for (method, template, path, body) in Self.refusedBodies {
                _ = try await r.call(server, method, template, path, token: admin, body: body)
            }
            _ = try await r.call(server, .GET, "/admin/v1/tokens", "/admin/v1/tokens", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/users", "/admin/v1/users", token: admin)
            _ = try await r.call(server, .POST, "/admin/v1/users", "/admin/v1/users", token: admin, body: #"{"name": "alice", "role": "editor"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/users", "/admin/v1/users", token: admin, body: #"{"name": "alice", "role": "editor"}"#)
            _ = try await r.call(server, .POST, "/admin/v1/users", "/admin/v1/users", token: admin, body: #"{"name": "bob", "role": "owner"}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/users/{name}", "/admin/v1/users/alice", token: admin, body: #"{"role": "viewer", "disabled": true}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/users/{name}", "/admin/v1/users/admin", token: admin, body: #"{"role": "viewer", "disabled": false}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/users/{name}", "/admin/v1/users/ghost", token: admin, body: #"{"role": "viewer", "disabled": false}"#)
            _ = try await r.call(server, .POST, "/admin/v1/users/{name}/password", "/admin/v1/users/alice/password", token: admin)
            _ = try await r.call(server, .POST, "/admin/v1/users/{name}/password", "/admin/v1/users/ghost/password", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/order", "/admin/v1/environments/order", token: admin,
                body: #"{"environments": ["production", "staging", "development", "qa"], "reason": "production first"}"#)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/order", "/admin/v1/environments/order", token: admin,
                body: #"{"environments": ["production"]}"#)
            let created = try await r.call(
                server, .POST, "/admin/v1/tokens", "/admin/v1/tokens", token: admin,
                body: #"{"name": "web", "environment": "production", "role": "server"}"#)
            let token = try #require(created.json?["token"]?.stringValue)

            _ = try await r.call(server, .POST, "/ofrep/v1/events/tickets", "/ofrep/v1/events/tickets", token: token)
            _ = try await r.call(server, .POST, "/ofrep/v1/events/tickets", "/ofrep/v1/events/tickets", token: admin)
            let context = #"{"context": {"targetingKey": "u1", "email": "beta@x"}}"#
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/checkout", token: token, body: context)
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/ghost", token: token, body: context)
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags/{key}", "/ofrep/v1/evaluate/flags/checkout", token: token, body: "{")
            let bulk = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: token, body: context)
            _ = try await r.call(
                server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: token, body: context,
                headers: [("If-None-Match", bulk.header("ETag") ?? "")])
            _ = try await r.call(server, .POST, "/ofrep/v1/evaluate/flags", "/ofrep/v1/evaluate/flags", token: nil, body: context)
            _ = try await r.call(server, .GET, "/rpc/app_config", "/rpc/app_config", token: token)
            _ = try await r.call(server, .GET, "/flagd/v1/flags.json", "/flagd/v1/flags.json", token: token)
            let id = String(token.split(separator: "_")[1])
            _ = try await r.call(server, .DELETE, "/admin/v1/tokens/{id}", "/admin/v1/tokens/\(id)", token: admin)
            _ = try await r.call(server, .GET, "/rpc/app_config", "/rpc/app_config", token: token)
            _ = try await r.call(
                server, .DELETE, "/admin/v1/environments/{environment}/segments/{key}",
                "/admin/v1/environments/production/segments/beta", token: admin)
            _ = try await r.call(server, .DELETE, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", token: admin)
            // Approvals, in `qa` (whose rule would refuse the direct writes above).
            let qa = "/admin/v1/environments/qa"
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/approval-rule", qa + "/approval-rule", token: admin,
                body: #"{"requiredApprovals": 1, "appliesTo": ["settings"]}"#)
            _ = try await r.call(server, .GET, "/admin/v1/environments/{environment}/approval-rule", qa + "/approval-rule", token: admin)
            let tooLong = try await r.call(
                server, .DELETE, "/admin/v1/environments/{environment}/approval-rule",
                qa + "/approval-rule?reason=" + String(repeating: "r", count: 1001), token: admin)
            #expect(tooLong.status == 400)
            _ = try await r.call(server, .DELETE, "/admin/v1/environments/{environment}/approval-rule", qa + "/approval-rule", token: admin)
            let opened = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/change-requests", qa + "/change-requests", token: admin,
                body: #"{"change": {"flag": "search", "patch": {"enabled": true}}, "reason": "launch in qa"}"#)
            let request = try #require(opened.json?["id"]?.stringValue)
            _ = try await r.call(server, .GET, "/admin/v1/environments/{environment}/change-requests", qa + "/change-requests", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/change-requests/{id}", qa + "/change-requests/\(request)", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/change-requests/{id}", qa + "/change-requests/\(request)", token: admin,
                body: #"{"change": {"flag": "search", "settings": {"enabled": true, "defaultVariant": "on"}}, "reason": "launch", "applyAt": "2030-01-01T00:00:00Z"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/change-requests/{id}/approve", qa + "/change-requests/\(request)/approve",
                token: admin, body: #"{"comment": "mine"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/change-requests/{id}/apply", qa + "/change-requests/\(request)/apply",
                token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/change-requests/{id}/reject", qa + "/change-requests/\(request)/reject",
                token: admin, body: "{}")
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/kill", qa + "/flags/search/kill", token: admin,
                body: #"{"reason": "incident"}"#)
            // Webhooks (no receiver: the service's attempts fail, which changes no answer here).
            let hook = try await r.call(
                server, .POST, "/admin/v1/webhooks", "/admin/v1/webhooks", token: admin,
                body: #"{"url": "https://hooks.example.com/flags", "kinds": ["flag.changed", "ping"], "environments": ["production"], "description": "chat"}"#)
            let hookID = try #require(hook.json?["id"]?.stringValue)
            _ = try await r.call(server, .POST, "/admin/v1/webhooks", "/admin/v1/webhooks", token: admin, body: #"{"url": "http://127.0.0.1/x"}"#)
            _ = try await r.call(server, .GET, "/admin/v1/webhooks", "/admin/v1/webhooks", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/webhooks/{id}", "/admin/v1/webhooks/\(hookID)", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/webhooks/{id}", "/admin/v1/webhooks/wh_missing", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/webhooks/{id}", "/admin/v1/webhooks/\(hookID)", token: admin,
                body: #"{"url": "https://hooks.example.com/v2", "enabled": true}"#)
            let hookPing = try await r.call(server, .POST, "/admin/v1/webhooks/{id}/ping", "/admin/v1/webhooks/\(hookID)/ping", token: admin)
            let hookDelivery = try #require(hookPing.json?["id"]?.stringValue)
            _ = try await r.call(
                server, .GET, "/admin/v1/webhooks/{id}/deliveries", "/admin/v1/webhooks/\(hookID)/deliveries?limit=5", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/webhooks/{id}/deliveries/{delivery}/redeliver",
                "/admin/v1/webhooks/\(hookID)/deliveries/\(hookDelivery)/redeliver", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/webhooks/{id}/rotate-secret", "/admin/v1/webhooks/\(hookID)/rotate-secret", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/webhooks/{id}", "/admin/v1/webhooks/\(hookID)", token: admin,
                body: #"{"url": "https://hooks.example.com/v2", "enabled": false}"#)
            _ = try await r.call(server, .POST, "/admin/v1/webhooks/{id}/ping", "/admin/v1/webhooks/\(hookID)/ping", token: admin)
            _ = try await r.call(server, .DELETE, "/admin/v1/webhooks/{id}", "/admin/v1/webhooks/\(hookID)", token: admin)

            // Experiments (Server/Docs/Experiments.md), on a flag split 50/50 in production.
            try await server.booleanFlag("trial", targeting: #"{"fractional": [["on", 50], ["off", 50]]}"#)
            let prod = "/admin/v1/environments/production"
            let experiments = "/admin/v1/environments/{environment}/experiments"
            _ = try await r.call(
                server, .POST, "/admin/v1/metrics", "/admin/v1/metrics", token: admin,
                body: #"{"key": "buy", "name": "Purchases", "event": "purchase", "kind": "conversion"}"#)
            _ = try await r.call(
                server, .POST, "/admin/v1/metrics", "/admin/v1/metrics", token: admin,
                body: #"{"key": "buy", "name": "Purchases", "event": "purchase", "kind": "conversion"}"#)
            _ = try await r.call(server, .GET, "/admin/v1/metrics", "/admin/v1/metrics", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/metrics/{key}", "/admin/v1/metrics/buy", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/metrics/{key}", "/admin/v1/metrics/buy", token: admin,
                body: #"{"name": "Buyers", "event": "purchase", "kind": "conversion", "windowHours": 24, "guardrail": true}"#)
            _ = try await r.call(
                server, .POST, experiments, prod + "/experiments", token: admin,
                body: #"{"id": "e1", "flag": "trial", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "plannedEnd": "2030-01-01T00:00:00Z"}"#)
            _ = try await r.call(
                server, .POST, experiments, prod + "/experiments", token: admin,
                body: #"{"id": "e2", "flag": "trial", "control": "off", "arms": ["off", "nope"], "metrics": ["buy"]}"#)
            _ = try await r.call(server, .GET, experiments, prod + "/experiments", token: admin)
            _ = try await r.call(server, .GET, experiments + "/{id}", prod + "/experiments/e1", token: admin)
            _ = try await r.call(
                server, .PUT, experiments + "/{id}", prod + "/experiments/e1", token: admin,
                body: #"{"flag": "trial", "control": "off", "arms": ["off", "on"], "metrics": ["buy"], "hypothesis": "on converts more"}"#)
            _ = try await r.call(server, .POST, experiments + "/{id}/start", prod + "/experiments/e1/start", token: admin, body: "{}")
            _ = try await r.call(server, .DELETE, "/admin/v1/metrics/{key}", "/admin/v1/metrics/buy", token: admin)
            _ = try await r.call(server, .GET, experiments + "/{id}/results", prod + "/experiments/e1/results?format=csv", token: admin)
            _ = try await r.call(server, .GET, experiments + "/{id}/results", prod + "/experiments/e1/results?refresh=true", token: admin)
            _ = try await r.call(server, .GET, experiments + "/{id}/results", prod + "/experiments/e1/results?refresh=maybe", token: admin)
            _ = try await r.call(server, .POST, experiments + "/{id}/stop", prod + "/experiments/e1/stop", token: admin, body: #"{"reason": "done"}"#)
            _ = try await r.call(server, .POST, experiments + "/{id}/ship", prod + "/experiments/e1/ship", token: admin, body: #"{"arm": "on"}"#)
            _ = try await r.call(server, .DELETE, experiments + "/{id}", prod + "/experiments/e1", token: admin)
            _ = try await r.call(
                server, .POST, experiments, prod + "/experiments", token: admin,
                body: #"{"id": "e3", "flag": "trial", "control": "off", "arms": ["off", "on"], "metrics": ["buy"]}"#)
            _ = try await r.call(server, .DELETE, experiments + "/{id}", prod + "/experiments/e3", token: admin)
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/experiment-plan", prod + "/flags/trial/experiment-plan",
                token: admin, body: #"{"baselineRate": 0.1, "minimumDetectableEffect": 0.01}"#)
            // Scheduled changes of `search` in `staging` (no rule there).
            let staging = "/admin/v1/environments/staging"
            let schedules = staging + "/flags/search/schedules"
            let scheduled = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/schedules", schedules, token: admin,
                body: #"{"change": {"patch": {"targeting": {"if": [true, "off", "on"]}}}, "runAt": "2030-01-01T00:00:00Z", "reason": "launch in staging"}"#)
            let schedule = try #require(scheduled.json?["id"]?.stringValue, "\(scheduled.body)")
            _ = try await r.call(
                server, .POST, "/admin/v1/environments/{environment}/flags/{key}/schedules", schedules, token: admin,
                body: #"{"change": {"patch": {"enabled": true}}, "runAt": "2001-01-01T00:00:00Z", "reason": "too late"}"#)
            _ = try await r.call(server, .GET, "/admin/v1/environments/{environment}/flags/{key}/schedules", schedules, token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/schedules", staging + "/schedules?from=2029-01-01T00:00:00Z", token: admin)
            _ = try await r.call(
                server, .GET, "/admin/v1/environments/{environment}/flags/{key}/schedules/{id}", schedules + "/\(schedule)", token: admin)
            _ = try await r.call(
                server, .PUT, "/admin/v1/environments/{environment}/flags/{key}/schedules/{id}", schedules + "/\(schedule)", token: admin,
                body: #"{"change": {"settings": {"enabled": true, "defaultVariant": "off", "targeting": {"if": [true, "on", "off"]}}}, "runAt": "2031-01-01T00:00:00Z", "reason": "later"}"#)
            _ = try await r.call(
                server, .DELETE, "/admin/v1/environments/{environment}/flags/{key}/schedules/{id}", schedules + "/\(schedule)", token: admin)
            _ = try await r.call(
                server, .DELETE, "/admin/v1/environments/{environment}/flags/{key}/schedules/{id}", schedules + "/\(schedule)", token: admin)

            // Rollouts (Server/Docs/Rollouts.md), in `staging` on `search`; `qa`'s rule refuses a start.
            let templates = "/admin/v1/rollout-templates"
            _ = try await r.call(
                server, .PUT, "/admin/v1/rollout-templates/{name}", templates + "/careful", token: admin,
                body: #"{"steps": [{"percent": 1, "durationSeconds": 3600}, {"percent": 100, "durationSeconds": 1}], "guardrails": [{"metric": "crash_rate", "tolerance": 0, "direction": "increase"}]}"#)
            let notToAll = try await r.call(
                server, .PUT, "/admin/v1/rollout-templates/{name}", templates + "/careful", token: admin,
                body: #"{"steps": [{"percent": 50, "durationSeconds": 60}]}"#)
            #expect(notToAll.status == 400)
            _ = try await r.call(server, .GET, "/admin/v1/rollout-templates", templates, token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/rollout-templates/{name}", templates + "/careful", token: admin)
            _ = try await r.call(server, .GET, "/admin/v1/rollout-templates/{name}", templates + "/nope", token: admin)
            let rollouts = "/admin/v1/environments/{environment}/rollouts"
            // A rollout starts only on a flag that is on (an off flag serves DISABLED at any share).
            _ = try await r.call(
                server, .PATCH, "/admin/v1/environments/{environment}/flags/{key}/settings", staging + "/flags/search/settings",
                token: admin, body: #"{"enabled": true, "reason": "before its rollout"}"#)
            let draft = try await r.call(
                server, .POST, rollouts, staging + "/rollouts", token: admin,
                body: #"{"flag": "search", "oldVariant": "off", "newVariant": "on", "template": "careful"}"#)
            #expect(draft.status == 201)
            let plan = try #require(draft.json?["id"]?.stringValue)
            let noSteps = try await r.call(
                server, .POST, rollouts, staging + "/rollouts", token: admin, body: #"{"flag": "search", "oldVariant": "off", "newVariant": "on"}"#)
            #expect(noSteps.status == 400)
            // A guardrail on a stored experiment metric; an unknown metric key is a 400.
            _ = try await r.call(
                server, .POST, "/admin/v1/metrics", "/admin/v1/metrics", token: admin,
                body: #"{"key": "basket", "name": "Basket", "event": "purchase", "kind": "mean"}"#)
            let metricGuarded = try await r.call(
                server, .POST, rollouts, staging + "/rollouts", token: admin,
                body: #"{"flag": "search", "oldVariant": "off", "newVariant": "on", "template": "careful", "guardrails": [{"metric": "experiment_metric", "metricKey": "basket", "tolerance": 0.5, "direction": "decrease"}]}"#)
            #expect(metricGuarded.status == 201)
            let unknownMetric = try await r.call(
                server, .POST, rollouts, staging + "/rollouts", token: admin,
                body: #"{"flag": "search", "oldVariant": "off", "newVariant": "on", "template": "careful", "guardrails": [{"metric": "experiment_metric", "metricKey": "nope", "tolerance": 0.5, "direction": "decrease"}]}"#)
            #expect(unknownMetric.status == 400)
            _ = try await r.call(
                server, .POST, rollouts, staging + "/rollouts", token: admin,
                body: #"{"flag": "nope", "oldVariant": "off", "newVariant": "on", "template": "careful"}"#)
            _ = try await r.call(server, .GET, rollouts, staging + "/rollouts?flag=search&limit=10", token: admin)
            _ = try await r.call(server, .GET, rollouts + "/{id}", staging + "/rollouts/\(plan)", token: admin)
            _ = try await r.call(server, .GET, rollouts + "/{id}", staging + "/rollouts/missing", token: admin)
            let started = try await r.call(server, .POST, rollouts + "/{id}/start", staging + "/rollouts/\(plan)/start", token: admin, body: "{}")
            #expect(started.json?["status"]?.stringValue == "running", "\(started.body)")
            let governed = try await r.call(
                server, .POST, rollouts, qa + "/rollouts", token: admin,
                body: #"{"flag": "search", "oldVariant": "off", "newVariant": "on", "steps": [{"percent": 50, "durationSeconds": 60}, {"percent": 100, "durationSeconds": 1}]}"#)
            let refused = try await r.call(
                server, .POST, rollouts + "/{id}/start", qa + "/rollouts/\(governed.json?["id"]?.stringValue ?? "")/start", token: admin,
                body: "{}")
            // `search` was killed in qa: starting is refused as the flag is off, before its approval rule.
            #expect(refused.status == 409 && refused.json?["error"]?["message"]?.stringValue?.contains("is off") == true, "\(refused.body)")
            let again = try await r.call(server, .POST, rollouts + "/{id}/start", staging + "/rollouts/\(plan)/start", token: admin, body: "{}")
            #expect(again.status == 409)
            _ = try await r.call(
                server, .POST, rollouts + "/{id}/pause", staging + "/rollouts/\(plan)/pause", token: admin, body: #"{"comment": "looking"}"#)
            _ = try await r.call(server, .POST, rollouts + "/{id}/resume", staging + "/rollouts/\(plan)/resume", token: admin, body: "{}")
            let busy = try await r.call(server, .DELETE, rollouts + "/{id}", staging + "/rollouts/\(plan)", token: admin)
            #expect(busy.status == 409)
            let rolledBack = try await r.call(
                server, .POST, rollouts + "/{id}/rollback", staging + "/rollouts/\(plan)/rollback", token: admin, body: #"{"comment": "done"}"#)
            #expect(rolledBack.json?["status"]?.stringValue == "rolled_back")
            _ = try await r.call(server, .DELETE, rollouts + "/{id}", staging + "/rollouts/\(plan)", token: admin)
            _ = try await r.call(server, .DELETE, "/admin/v1/rollout-templates/{name}", templates + "/careful", token: admin)

            try JSONValue.array(r.entries).serialized().write(toFile: directory + "/responses.json", atomically: true, encoding: .utf8)
        }

        let (status, text) = try Self.validate([directory + "/openapi.json", directory + "/responses.json"])
        #expect(status == 0, "\(text)")
        #expect(text.contains(" 0 problems"))
        // Every refused body above is one the document refuses too (and so are `{"key": 1}`, the
        // user of role `owner`, the patch `{"enabled": null}` and the OFREP body `{`).
        #expect(text.contains("\(Self.refusedBodies.count + 4) it refuses"), "\(text)")
    }

    /// Runs `scripts/tools/validate_responses.py` with `arguments`: its exit status and output.
    static func validate(_ arguments: [String]) throws -> (Int32, String) {
        try runPythonScript("validate_responses.py", arguments)
    }

    /// Bodies the document refuses (an unknown field, a wrong type, a missing field, a value out
    /// of range, not JSON, a repeated key), sent to a server holding the flag `checkout` and the
    /// segment `beta` in `production`.
    static let refusedBodies: [(HTTPMethod, String, String, String)] = [
        (.POST, "/admin/v1/environments", "/admin/v1/environments", #"{"key": "qa2", "colour": "red"}"#),
        (.POST, "/admin/v1/environments", "/admin/v1/environments", #"{"key": "not a key"}"#),
        (.PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {"on": true}, "metadata": {"owner": 7}}"#),
        (.PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {"on": true}, "metadata": {"ownr": "x"}}"#),
        (.PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", #"{"type": "bool", "variants": {"on": true}}"#),
        (.PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {}}"#),
        (.PUT, "/admin/v1/flags/{key}", "/admin/v1/flags/checkout", #"{"type": "boolean", "variants": {"on": true}, "metadata": {"custom": {"team": ["a"]}}}"#),
        (.PUT, "/admin/v1/environments/{environment}/flags/{key}/settings", "/admin/v1/environments/production/flags/checkout/settings",
         #"{"enabled": "yes", "defaultVariant": "on"}"#),
        (.PUT, "/admin/v1/environments/{environment}/flags/{key}/settings", "/admin/v1/environments/production/flags/checkout/settings",
         #"{"enabled": true}"#),
        (.PUT, "/admin/v1/environments/{environment}/flags/{key}/settings", "/admin/v1/environments/production/flags/checkout/settings",
         #"{"enabled": true, "defaultVariant": "on", "enabled": false}"#),
        (.PUT, "/admin/v1/environments/{environment}/flags/{key}/settings", "/admin/v1/environments/production/flags/checkout/settings",
         #"{"enabled": true, "defaultVariant": "on", "reason": "\#(String(repeating: "x", count: 1001))"}"#),
        (.PUT, "/admin/v1/environments/{environment}/flags/{key}/settings", "/admin/v1/environments/production/flags/checkout/settings",
         #"{"enabled": true, "defaultVariant": "on""#),
        (.PUT, "/admin/v1/environments/{environment}/segments/{key}", "/admin/v1/environments/production/segments/beta", #"{"rule": "beta"}"#),
        (.POST, "/admin/v1/environments/{environment}/flags/{key}/revert", "/admin/v1/environments/production/flags/checkout/revert",
         #"{"revision": 0}"#),
        (.POST, "/admin/v1/tokens", "/admin/v1/tokens", #"{"name": "web", "environment": "production", "role": "owner"}"#),
        (.POST, "/admin/v1/tokens", "/admin/v1/tokens", #"{"name": "web", "environment": "production"}"#),
    ]

    @Test
    func aRefusedBodyIsA400NamingTheFieldAndChangesNothing() async throws {
        try await TestServer.with { server in
            let admin = server.adminToken
            try await server.booleanFlag("checkout")
            let segment = try await server.request(
                .PUT, "/admin/v1/environments/production/segments/beta", token: admin, body: #"{"rule": {"==": [1, 1]}}"#)
            #expect(segment.status == 200)
            func snapshot() async throws -> [String] {
                var bodies: [String] = []
                for path in ["/admin/v1/flags", "/admin/v1/environments", "/admin/v1/environments/production/flags",
                             "/admin/v1/environments/production/segments", "/admin/v1/tokens"] {
                    bodies.append(try await server.request(.GET, path, token: admin).body)
                }
                return bodies
            }
            let before = try await snapshot()
            let expectedFields = [
                "colour", "key", "metadata.owner", "metadata.ownr", "type", "variants", "metadata.custom.team", "enabled",
                "defaultVariant", "(body)", "reason", "(body)", "rule", "revision", "role", "role",
            ]
            #expect(expectedFields.count == Self.refusedBodies.count)
            for ((method, _, path, body), field) in zip(Self.refusedBodies, expectedFields) {
                let reply = try await server.request(method, path, token: admin, body: body)
                #expect(reply.status == 400, "\(path) \(body): \(reply.status) \(reply.body)")
                #expect(reply.json?["error"]?["code"] == "bad_request")
                let fields = reply.json?["error"]?["problems"]?.arrayValue?.compactMap { $0["field"]?.stringValue } ?? []
                #expect(fields.contains(field), "\(body): expected a problem at \(field), got \(reply.body)")
                let message = reply.json?["error"]?["message"]?.stringValue ?? ""
                #expect(message.contains(field == "(body)" ? "not JSON" : field), "\(reply.body)")
            }
            #expect(try await snapshot() == before)
        }
    }

    @Test
    func semanticRefusalsAre4xxWithAJSONErrorAndChangeNothing() async throws {
        try await TestServer.with(limits: ServerLimits(maximumAdminBytes: 2048)) { server in
            let admin = server.adminToken
            try await server.booleanFlag("checkout")
            let before = try await server.request(.GET, "/admin/v1/environments/production/flags", token: admin).body
            let unknownFlag = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/ghost/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(unknownFlag.status == 404)
            #expect(unknownFlag.json?["error"]?["message"]?.stringValue?.contains("\"ghost\"") == true)
            let invalidRule = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"no_such_operator": [1]}}"#)
            #expect(invalidRule.status == 422)
            #expect(invalidRule.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "targeting")
            #expect(invalidRule.json?["error"]?["problems"]?.arrayValue?.first?["key"] == "checkout")
            let unknownVariant = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "maybe"}"#)
            #expect(unknownVariant.status == 422)
            #expect(unknownVariant.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "defaultVariant")
            let registryName = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: admin,
                body: #"{"type": "boolean", "variants": {"on": true, "off": false}, "metadata": {"custom": {"owner": "x"}}}"#)
            #expect(registryName.status == 422)
            #expect(registryName.json?["error"]?["problems"]?.arrayValue?.first?["field"] == "metadata.custom.owner")
            let duplicate = try await server.request(.POST, "/admin/v1/environments", token: admin, body: #"{"key": "production"}"#)
            #expect(duplicate.status == 409)
            #expect(duplicate.json?["error"]?["message"]?.stringValue?.contains("\"production\"") == true)
            let oversized = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: admin,
                body: #"{"enabled": true, "defaultVariant": "on", "targeting": {"in": ["\#(String(repeating: "x", count: 3000))", ["a"]]}}"#)
            #expect(oversized.status == 413)
            #expect(oversized.json?["error"]?["message"]?.stringValue?.contains("2048 bytes") == true)
            #expect(try await server.request(.GET, "/admin/v1/environments/production/flags", token: admin).body == before)
        }
    }

    /// The request schemas use only keywords the server's validator checks, so the document
    /// promises nothing the server does not enforce.
    @Test
    func requestSchemasUseOnlyKeywordsTheServerChecks() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/FlagServer/Resources/openapi.json")
        let document = try JSONValue(parsing: String(contentsOf: url, encoding: .utf8))
        let schemas = document["components"]?["schemas"]?.objectValue ?? [:]
        var unsupported: [String] = []
        var visited: Set<String> = []
        func walk(_ schema: JSONValue, at place: String) {
            guard case .object(let members) = schema else { return }
            for (keyword, value) in members {
                if keyword == "$ref", let name = value.stringValue?.split(separator: "/").last.map(String.init) {
                    if visited.insert(name).inserted, let target = schemas[name] { walk(target, at: name) }
                } else if !RequestSchemaValidator.supportedKeywords.contains(keyword)
                    && !RequestSchemaValidator.annotationKeywords.contains(keyword)
                {
                    unsupported.append("\(place): \(keyword)")
                }
            }
            for (name, property) in members["properties"]?.objectValue ?? [:] { walk(property, at: "\(place).\(name)") }
            if let additional = members["additionalProperties"] { walk(additional, at: "\(place).*") }
            if let items = members["items"] { walk(items, at: "\(place)[]") }
        }
        var bodies = 0
        for (path, operations) in document["paths"]?.objectValue ?? [:] where path.hasPrefix("/admin/") {
            for (method, operation) in operations.objectValue ?? [:] {
                guard let schema = operation["requestBody"]?["content"]?["application/json"]?["schema"] else { continue }
                bodies += 1
                walk(schema, at: "\(method.uppercased()) \(path)")
            }
        }
        #expect(bodies >= 7)
        #expect(unsupported.isEmpty, "\(unsupported.sorted())")
    }
}
