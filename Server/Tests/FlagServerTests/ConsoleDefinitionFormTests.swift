import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// An existing flag's variants and metadata are edited on its page without writing JSON by hand
/// (the variant rows post the JSON field; the server checks it as every write), keeping what the
/// form does not show.
struct ConsoleDefinitionFormTests {
    static let defined = #"""
        {"type": "string", "variants": {"control": "blue", "treatment": "green"}, "defaultVariant": "control",
         "metadata": {"owner": "web", "requires": ["base"], "custom": {"x-tags": "checkout"}}}
        """#

    static func withFlag(_ body: (TestServer, ConsoleClient, String) async throws -> Void) async throws {
        try await TestServer.withConsole { server in
            try await server.booleanFlag("base")
            let put = try await server.request(.PUT, "/admin/v1/flags/banner", token: server.adminToken, body: Self.defined)
            #expect(put.status == 200, "\(put.body)")
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            try await body(server, client, try await client.csrf())
        }
    }

    @Test
    func theFlagPageEditsTheVariantsAsRowsAndKeepsWhatItDoesNotShow() async throws {
        try await Self.withFlag { server, client, csrf in
            let page = try await client.get("/console/flags/banner")
            #expect(page.body.contains(#"id="definition-form""#))
            // The rows editor's field, with the flag's type for its inputs.
            #expect(page.body.contains(#"data-variant-rows"#))
            #expect(page.body.contains(#"<input type="hidden" id="type" value="string">"#))
            #expect(page.body.contains(#"{&quot;control&quot;:&quot;blue&quot;,&quot;treatment&quot;:&quot;green&quot;}"#))

            let saved = try await client.post(
                "/console/flags/banner/definition",
                [("variants", #"{"control": "blue", "treatment": "red", "dark": "black"}"#), ("owner", "growth"),
                 ("description", "The banner"), ("phase", "2"), ("reason", "a dark variant")], csrf: csrf)
            #expect(saved.status == 303)
            #expect(saved.location == "/console/flags/banner?done=saved")
            let flag = try #require(await server.server.admin.state.flags["banner"])
            #expect(flag.variants == ["control": "blue", "treatment": "red", "dark": "black"])
            #expect(flag.metadata.owner == "growth")
            #expect(flag.metadata.description == "The banner")
            #expect(flag.metadata.phase == 2)
            #expect(flag.metadata.requires == ["base"])
            #expect(flag.metadata.custom == ["x-tags": "checkout"])
            #expect(flag.defaultVariant == "control")
            #expect(flag.type == .string)
            let audit = try await server.request(.GET, "/admin/v1/environments/production/audit?key=banner", token: server.adminToken)
            #expect(audit.json?.arrayValue?.first?["reason"] == "a dark variant")
        }
    }

    @Test
    func aRefusedDefinitionSaysWhyKeepsTheFormAndWritesNothing() async throws {
        try await Self.withFlag { server, client, csrf in
            let before = await server.server.admin.state
            let wrongType = try await client.post(
                "/console/flags/banner/definition", [("variants", #"{"control": "blue", "treatment": 3}"#), ("owner", "web")],
                csrf: csrf)
            #expect(wrongType.status == 422)
            #expect(wrongType.body.contains("variants.treatment: is number, but the flag"))
            // The posted variants are shown again, with the box open.
            #expect(wrongType.body.contains(#"<details class="definition" id="definition-box" open>"#))
            #expect(wrongType.body.contains("&quot;treatment&quot;: 3"))

            // Every environment serves "control" by default: removing it is refused.
            let removed = try await client.post(
                "/console/flags/banner/definition", [("variants", #"{"treatment": "green"}"#)], csrf: csrf)
            #expect(removed.status == 422)
            #expect(removed.body.contains("&quot;control&quot; is not one of the variants (treatment)"))

            let notJSON = try await client.post("/console/flags/banner/definition", [("variants", "{control")], csrf: csrf)
            #expect(notJSON.status == 422)
            #expect(notJSON.body.contains("variants: not JSON"))
            let badPhase = try await client.post(
                "/console/flags/banner/definition", [("variants", #"{"control": "blue"}"#), ("phase", "two")], csrf: csrf)
            #expect(badPhase.status == 422)
            let forged = try await client.post("/console/flags/banner/definition", [("variants", #"{"control": "x"}"#)], csrf: "wrong")
            #expect(forged.status == 403)
            #expect(await server.server.admin.state == before)
        }
    }

    @Test
    func sensitiveArchivedAndViewersGetNoVariantEditor() async throws {
        try await Self.withFlag { server, client, csrf in
            let secret = try await server.request(
                .PUT, "/admin/v1/flags/secret", token: server.adminToken,
                body: #"{"type": "string", "variants": {"key": "s3cr3t"}, "metadata": {"sensitive": true}}"#)
            #expect(secret.status == 200)
            let page = try await client.get("/console/flags/secret")
            #expect(page.body.contains(#"id="variants-sensitive""#))
            #expect(!page.body.contains("s3cr3t"))
            let posted = try await client.post("/console/flags/secret/definition", [("variants", #"{"key": "other"}"#)], csrf: csrf)
            #expect(posted.status == 400)
            // Without the variants field, the metadata is saved and the values kept.
            let owner = try await client.post("/console/flags/secret/definition", [("owner", "security")], csrf: csrf)
            #expect(owner.status == 303)
            #expect(await server.server.admin.state.flags["secret"]?.variants == ["key": "s3cr3t"])
            #expect(await server.server.admin.state.flags["secret"]?.metadata.owner == "security")

            let archived = try await server.request(.POST, "/admin/v1/flags/secret/archive", token: server.adminToken, body: "{}")
            #expect(archived.status == 200)
            #expect(!(try await client.get("/console/flags/secret").body.contains(#"id="definition-form""#)))
            let refused = try await client.post("/console/flags/secret/definition", [("owner", "nobody")], csrf: csrf)
            #expect(refused.status == 409)

            try await server.consoleUser("vic", role: .viewer)
            let viewer = ConsoleClient(server)
            try await viewer.signIn("vic")
            #expect(!(try await viewer.get("/console/flags/banner").body.contains(#"id="definition-form""#)))
            let denied = try await viewer.post("/console/flags/banner/definition", [("owner", "vic")], csrf: try await viewer.csrf())
            #expect(denied.status == 403)
        }
    }
}
