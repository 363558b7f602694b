import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// What the console says a flag serves (the grid, the flag page, the comparison) and what a
/// rollout preview shows for a flag that is off.
struct ConsoleServingTests {
    @Test
    func servingCellsNameTheVariantAndSayWhenTheFlagIsOff() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("checkout", environment: "production", enabled: true, defaultVariant: "on")
            try await server.booleanFlag("search", environment: "production", enabled: false, defaultVariant: "off",
                targeting: #"{"fractional": [["on", 10], ["off", 90]]}"#)
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            for path in ["/console/flags", "/console/flags/checkout", "/console/flags/search?environment=production",
                         "/console/environments?left=staging&right=production"] {
                let page = try await client.get(path)
                #expect(page.status == 200)
                #expect(!page.body.contains("Optional("), "\(path) prints a Swift optional")
            }
            let grid = try await client.get("/console/flags")
            #expect(grid.body.contains(#"<span class="words">on: serves on</span>"#))
            // The search flag is off in production: its cell says so, then what it will serve.
            #expect(grid.body.contains(#"<span class="words">off</span><span class="then">once on: 10 % rollout of on</span>"#))
            let page = try await client.get("/console/flags/search?environment=production")
            #expect(!page.body.contains("<td>rollout off 90% · on 10%</td>"))
            #expect(page.body.contains("<td>off: apps use their code default; once on, rollout off 90% · on 10%</td>"))
        }
    }

    /// `serving` of a flag without a default variant (flagd allows none) names the code default.
    @Test
    func servingWithoutADefaultVariantNamesTheCodeDefault() {
        let flag = FlagRecord(key: "k", type: .boolean, variants: ["on": true, "off": false])
        #expect(ConsoleRoutes.serving(flag, FlagSettings(enabled: true, defaultVariant: nil)) == "serves the code default")
        #expect(ConsoleRoutes.serving(flag, FlagSettings(enabled: true, defaultVariant: "on", targeting: ["if": [true, "on"]]))
            == "rule, else on")
        #expect(ConsoleRoutes.serving(flag, FlagSettings(enabled: false, defaultVariant: "on"))
            == "off: apps use their code default; once on, serves on")
    }

    @Test
    func theRolloutPreviewOfAnOffFlagShowsWhatItServesOnceOn() async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("search", environment: "production", enabled: false, defaultVariant: "off")
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()
            let preview = try await client.post(
                "/console/flags/search/environments/production/rollout",
                [("percent.on", "30"), ("percent.off", "70"), ("action", "preview")], csrf: csrf)
            #expect(preview.status == 200)
            #expect(preview.body.contains("The flag is off in production"))
            #expect(!preview.body.contains("(default)"))
            // Both variants get users, near 30/70 over 1000 sample users.
            let on = try #require(Self.share(of: "on", in: preview.body))
            #expect((25.0...35.0).contains(on), "on got \(on) %")

            // The admin API's preview says the same: evaluated as on, `enabled` false.
            let api = try await server.request(
                .POST, "/admin/v1/environments/production/flags/search/preview", token: server.adminToken,
                body: #"{"percentages": {"on": 50, "off": 50}, "targetingKeys": ["a", "b", "c", "d", "e", "f", "g", "h"]}"#)
            #expect(api.status == 200)
            #expect(api.json?["enabled"] == false)
            #expect(api.json?["counts"]?["(default)"] == nil)
            #expect(api.json?["assignments"]?.arrayValue?.allSatisfy { $0["reason"] == "TARGETING_MATCH" } == true)
        }
    }

    /// The share printed for `variant` in the preview table.
    static func share(of variant: String, in html: String) -> Double? {
        guard let preview = html.range(of: #"id="preview""#),
            let row = html[preview.upperBound...].range(of: "<th scope=\"row\">\(variant)</th><td>")
        else { return nil }
        let rest = html[row.upperBound...]
        guard let cell = rest.range(of: "</td><td>") else { return nil }
        return Double(rest[cell.upperBound...].prefix { $0 != "%" })
    }
}
