import FlagEvaluation
import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// Variant names, metadata keys and keys with control or bidirectional characters are refused on
/// the API and in imports, naming the name and the character's position.
struct NameRuleTests {
    @Test
    func theAPIAndImportsRefuseThemNamingThePosition() async throws {
        try await TestServer.with { server in
            let put = try await server.request(
                .PUT, "/admin/v1/flags/checkout", token: server.adminToken,
                body: #"{"type": "boolean", "variants": {"on\u0000": true, "off": false}}"#)
            #expect(put.status == 422)
            #expect(put.json?["error"]?["problems"]?.arrayValue?.first?["problem"]?.stringValue?
                .hasPrefix(#"the variant name "on\u{0}" has U+0000 (a control character) at position 3"#) == true)

            let document = #"""
                {"flags": {"ab\u202Ec": {"variants": {"on": true}, "defaultVariant": "on"},
                           "banner": {"variants": {"a\u2066b": "x"}, "defaultVariant": null, "metadata": {"te\u001bam": "x"}}}}
                """#
            let imported = try await server.request(
                .POST, "/admin/v1/environments/staging/import?dryRun=true", token: server.adminToken, body: document)
            #expect(imported.status == 200)
            let problems = imported.json?["problems"]?.arrayValue?.compactMap { $0["problem"]?.stringValue } ?? []
            #expect(problems.contains { $0.hasPrefix("has U+202E at position 3; keys must be") })
            #expect(problems.contains { $0.hasPrefix(#"the variant name "a\u{2066}b" has U+2066 (a bidirectional formatting character) at position 2"#) })
            #expect(problems.contains { $0.hasPrefix(#"the metadata key "te\u{1B}am" has U+001B (a control character) at position 3"#) })
            #expect(try await server.request(
                .POST, "/admin/v1/environments/staging/import", token: server.adminToken, body: document).status == 422)
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])
        }
    }
}
