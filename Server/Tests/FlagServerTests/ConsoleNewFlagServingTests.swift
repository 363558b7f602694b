import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import NIOHTTP1
import Testing

/// What a flag created in the console serves once switched on: a boolean serves its `true`
/// variant unless the form chose another, and the form says which before it is sent.
struct ConsoleNewFlagServingTests {
    static func created(_ server: TestServer, _ key: String) async -> FlagSettings? {
        await server.server.admin.state.environments["production"]?.settings[key]
    }

    @Test
    func aBooleanCreatedWithTheProposedVariantsServesTrueWhenSwitchedOn() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let form = try await client.get("/console/new-flag")
            #expect(form.body.contains(#"<select id="defaultVariant" name="defaultVariant""#))
            #expect(form.body.contains(#"<option value="" selected>Automatic: &quot;on&quot; (the variant whose value is true)</option>"#))
            #expect(form.body.contains(#"<p id="served-when-on" class="hint" aria-live="polite">Created off in every environment; switched on, it serves &quot;on&quot; (true).</p>"#))

            let created = try await client.post(
                "/console/new-flag", [("key", "dark-mode"), ("type", "boolean"), ("variants", #"{"on": true, "off": false}"#)], csrf: csrf)
            #expect(created.status == 303)
            #expect(await Self.created(server, "dark-mode") == FlagSettings(enabled: false, defaultVariant: "on"))
            let on = try await client.post(
                "/console/flags/dark-mode/environments/production/switch", [("enabled", "true"), ("reason", "launch")], csrf: csrf)
            #expect(on.status == 303)
            let token = try await server.token(.client, environment: "production")
            let evaluation = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags/dark-mode", token: token, body: #"{"context": {"targetingKey": "user-1"}}"#)
            #expect(evaluation.json?["value"] == .bool(true))
            #expect(evaluation.json?["variant"]?.stringValue == "on")

            // Other names: the variant whose value is true, whatever it is called.
            _ = try await client.post(
                "/console/new-flag", [("key", "beta"), ("type", "boolean"), ("variants", #"{"yes": true, "no": false}"#), ("defaultVariant", "")],
                csrf: csrf)
            #expect(await Self.created(server, "beta")?.defaultVariant == "yes")
        }
    }

    @Test
    func theFormsChoiceIsServedAndAChoiceThatIsNoVariantIsRefused() async throws {
        try await TestServer.withConsole { server in
            try await server.consoleUser("erin", role: .editor)
            let client = ConsoleClient(server)
            try await client.signIn("erin")
            let csrf = try await client.csrf()

            let chosen = try await client.post(
                "/console/new-flag",
                [("key", "quiet"), ("type", "boolean"), ("variants", #"{"on": true, "off": false}"#), ("defaultVariant", "off")], csrf: csrf)
            #expect(chosen.status == 303)
            #expect(await Self.created(server, "quiet")?.defaultVariant == "off")

            let refused = try await client.post(
                "/console/new-flag",
                [("key", "loud"), ("type", "boolean"), ("variants", #"{"on": true, "off": false}"#), ("defaultVariant", "<b>maybe</b>")],
                csrf: csrf)
            #expect(refused.status == 422)
            #expect(refused.body.contains("defaultVariant: &quot;&lt;b&gt;maybe&lt;/b&gt;&quot; is not one of the variants (off, on)"))
            #expect(!refused.body.contains("<b>maybe</b>"))
            #expect(await server.server.admin.state.flags["loud"] == nil)

            // A string flag serves its first variant by name unless one is chosen; the form
            // comes back with the choice kept and the line saying what it serves.
            let page = try await client.post(
                "/console/new-flag",
                [("key", "bad key"), ("type", "string"), ("variants", ##"{"red": "#f00", "blue": "<i>#00f</i>"}"##), ("defaultVariant", "red")],
                csrf: csrf)
            #expect(page.status == 422)
            #expect(page.body.contains(#"<option value="red" selected>red</option>"#))
            #expect(page.body.contains("switched on, it serves &quot;red&quot; (&quot;#f00&quot;)."))
            #expect(page.body.contains("Automatic: &quot;blue&quot; (the first variant by name)"))
            _ = try await client.post(
                "/console/new-flag", [("key", "colour"), ("type", "string"), ("variants", ##"{"red": "#f00", "blue": "#00f"}"##)], csrf: csrf)
            #expect(await Self.created(server, "colour")?.defaultVariant == "blue")
        }
    }
}
