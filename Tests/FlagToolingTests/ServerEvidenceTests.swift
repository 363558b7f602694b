import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation
import Testing

/// Removal evidence from a flag server: read over the admin API (a fake transport) or from a
/// saved answer, turned into lint warnings, a `refs` section and a removal plan's citation.
struct ServerEvidenceTests {
    static let token = "ffs_abc123_s3cr3t-token-text"
    static let fixture = TestPaths.fixtures.appendingPathComponent("Evidence/production.json")

    static func manifest() -> Manifest {
        Manifest(definitions: [
            FlagDefinition(key: "new_chat", type: .boolean, default: false, owner: "messaging", removalTarget: "3.0"),
            FlagDefinition(key: "voice", type: .boolean, default: false, requires: ["new_chat"]),
            FlagDefinition(key: "page_size", type: .integer, default: 20, followsPhasePolicy: false, checking: .userOnly),
        ])
    }

    @Test func theClientReadsTheEvidenceOfOneEnvironmentAndNeverShowsTheToken() throws {
        let body = try String(contentsOf: Self.fixture, encoding: .utf8)
        let transport = FakeFlagServerTransport(status: 200, body: body)
        let client = try FlagServerClient(server: "https://flags.example.com", token: Self.token, transport: transport)
        let evidence = try client.evidence(environment: "production", days: 30)
        #expect(evidence.environment == "production")
        #expect(evidence["new_chat"]?.state == .settled)
        #expect(evidence["new_chat"]?.run?.appVersions == ["2.0", "2.1"])
        #expect(evidence["page_size"]?.state == .unused)
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://flags.example.com/admin/v1/environments/production/evidence?days=30")
        #expect(request.headers["Authorization"] == "Bearer \(Self.token)")

        let refusing = FakeFlagServerTransport(
            status: 403, body: #"{"error": {"code": "forbidden", "message": "token \#(Self.token) is for staging"}}"#)
        do {
            _ = try FlagServerClient(server: "https://flags.example.com", token: Self.token, transport: refusing)
                .evidence(environment: "production", days: 30)
            Issue.record("a 403 must fail")
        } catch {
            #expect(error.kind == .serverFailure)
            #expect(
                error.message
                    == #"The token may not do this (403 forbidden: "token <REDACTED> is for staging"): reading environment "production" needs an admin token for it or for all environments ("*")."#)
        }
    }

    @Test func aRefusedTokenNamesTheVariableItCameFrom() throws {
        let transport = FakeFlagServerTransport(
            status: 401, body: #"{"error": {"code": "unauthorized", "message": "unknown token", "problems": []}}"#)
        var client = try FlagServerClient(server: "https://flags.example.com", token: Self.token, transport: transport)
        client.tokenSource = "the environment variable EVIDENCE_TOKEN"
        do {
            _ = try client.evidence(environment: "production", days: 7)
            Issue.record("a 401 must fail")
        } catch {
            #expect(
                error.message
                    == #"The server refused the token (401 unauthorized: "unknown token"). Pass a valid token with the environment variable EVIDENCE_TOKEN: reading environment "production" needs an admin token for it or for all environments ("*")."#)
        }
        #expect(transport.requests.first?.url.absoluteString == "https://flags.example.com/admin/v1/environments/production/evidence?days=7")
    }

    @Test func aSavedAnswerThatIsNotEvidenceIsRefusedWithWhere() throws {
        let file = try TestPaths.temporaryDirectory().appendingPathComponent("evidence.json")
        try #"{"environment": "production", "days": "thirty"}"#.write(to: file, atomically: true, encoding: .utf8)
        do {
            _ = try ServerEvidence.load(path: file.path)
            Issue.record("must fail")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.message == "\(file.path) is not an answer of GET /admin/v1/environments/{environment}/evidence: days: expected Int.")
        }
    }

    @Test func lintWarnsForUnusedAndSettledFlagsWithWhatToRemoveThemWith() throws {
        let evidence = try ServerEvidence.load(path: Self.fixture.path)
        let findings = EvidenceLinter(evidence: evidence).lint(Self.manifest())
        #expect(findings.map(\.rule) == ["settled", "unused"])
        #expect(findings.allSatisfy { $0.severity == .warning })
        #expect(
            findings.map(\.message) == [
                #"'new_chat' is settled in production: every unit was served "on" for 30 days, since 2025-10-27, on app versions 2.0, 2.1 (1240 evaluations, 80 exposures, 400 unit-days; 12 reads of a local value). Remove it keeping that variant: flags remove new_chat --keep on."#,
                "'page_size' is unused in production: nothing evaluated it for 30 days (last evaluated 2025-09-30). Remove it keeping the code default (keep the code default) once no app version still in use reads it.",
            ])
    }

    @Test func theRemovalPlanCitesTheEvidenceAndWarnsWhenTheKeptValueDiffers() throws {
        let evidence = try ServerEvidence.load(path: Self.fixture.path)
        let manifest = Self.manifest()
        // Removing new_chat kept off would switch off voice, which requires it: remove voice first.
        let keptOn = try FlagRemover(manifest: manifest, key: "new_chat", keep: true).plan(files: [])
        #expect(
            keptOn.evidenceText(evidence) == """
                evidence: 'new_chat' is settled in production: every unit was served "on" for 30 days, since 2025-10-27, on app versions 2.0, 2.1 (1240 evaluations, 80 exposures, 400 unit-days; 12 reads of a local value).
                evidence: keeping on keeps what every unit was served.

                """)
        let voiceOff = try FlagRemover(manifest: manifest, key: "voice", keep: false).plan(files: [])
        #expect(
            voiceOff.evidenceText(evidence) == """
                evidence: 'voice' is active in production: served off in the last 30 days; only on since 2025-11-10.
                warning: the server still serves 'voice' in production (served off in the last 30 days; only on since 2025-11-10): keeping off changes what some units get.

                """)
        let settledOff = ServerEvidence(
            environment: "production", days: 30, windowStart: 0,
            flags: [.init(flag: "voice", state: .settled, reason: "", run: .init(
                variant: "on", since: 0, coversWindow: true, appVersions: [""], evaluations: 3, exposures: 1, unitDays: 1))])
        #expect(
            voiceOff.evidenceText(settledOff) == """
                evidence: 'voice' is settled in production: every unit was served "on" for 30 days, since 1970-01-01, on app version (unnamed) (3 evaluations, 1 exposures, 1 unit-days).
                warning: every unit was served on, but this removal keeps off: their behaviour changes. Keep on with --keep on.

                """)
        #expect(
            voiceOff.evidenceText(ServerEvidence(environment: "staging", days: 30, windowStart: 0, flags: []))
                == "evidence: the server has no flag 'voice' in staging.\n")
    }

    @Test func refsListsTheUnusedAndSettledFlagsWithTheirReferences() throws {
        let directory = try TestPaths.temporaryDirectory()
        let file = directory.appendingPathComponent("Title.swift")
        try "let title = flags.isEnabled(.newChat) ? \"new\" : \"old\"\n".write(to: file, atomically: true, encoding: .utf8)
        let evidence = try ServerEvidence.load(path: Self.fixture.path)
        let report = try ReferenceFinder(manifest: Self.manifest()).scan(files: [file.path])
        let text = report.text(appVersion: nil, evidence: evidence)
        #expect(text.hasSuffix("""

            Unused or settled in production, from the server's events over 30 days (2):
              new_chat: settled in production: every unit was served "on" for 30 days, since 2025-10-27, on app versions 2.0, 2.1 (1240 evaluations, 80 exposures, 400 unit-days; 12 reads of a local value); 1 reference
                \(file.path):1
              page_size: unused in production: nothing evaluated it for 30 days (last evaluated 2025-09-30); no references

            """))
        // Without evidence the report is as before; with it, the section comes last.
        #expect(text.hasPrefix(report.text(appVersion: nil)))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.json(appVersion: nil, evidence: evidence).utf8)) as? [String: Any])
        let flags = try #require((json["evidence"] as? [String: Any])?["flags"] as? [[String: Any]])
        #expect(flags.map { $0["key"] as? String } == ["new_chat", "page_size"])
        #expect(flags[0]["variant"] as? String == "on")
        #expect(flags[0]["since"] as? String == "2025-10-27")
        #expect(flags[0]["appVersions"] as? [String] == ["2.0", "2.1"])
        #expect(flags[1]["lastEvaluated"] as? String == "2025-09-30")
    }

    @Test func lintAndRemoveReadASavedAnswer() throws {
        let directory = try TestPaths.temporaryDirectory()
        try Self.manifest().jsonString().write(to: directory.appendingPathComponent("flags.json"), atomically: true, encoding: .utf8)
        let lines = try ManifestReader().read(contentsOfFile: directory.appendingPathComponent("flags.json").path).flags
            .reduce(into: [String: Int]()) { $0[$1.key] = $1.line }
        let lint = try FlagsTool.run(
            ["lint", "--manifest", "flags.json", "--app-version", "2.0", "--evidence", Self.fixture.path], in: directory)
        #expect(lint.status == 0)
        #expect(lint.standardError == "")
        #expect(lint.standardOutput.contains(
            "flags.json:\(lines["new_chat"] ?? 0): warning: [settled] 'new_chat' is settled in production: every unit was served \"on\""))
        #expect(lint.standardOutput.contains("flags.json:\(lines["page_size"] ?? 0): warning: [unused] 'page_size' is unused in production"))
        // The saved answer is another environment's: refused, naming it.
        let other = try FlagsTool.run(
            ["lint", "--manifest", "flags.json", "--app-version", "2.0", "--evidence", Self.fixture.path, "--environment", "staging"],
            in: directory)
        #expect(other.status == 2)
        #expect(other.standardError.contains(#"holds the evidence of environment "production", not "staging"; pass --environment production."#))
        // Both sources at once is a usage error.
        let both = try FlagsTool.run(
            ["lint", "--manifest", "flags.json", "--app-version", "2.0", "--evidence", Self.fixture.path, "--server", "http://127.0.0.1:1"],
            in: directory)
        #expect(both.status == 2)
        #expect(both.standardError.contains("Give the evidence with either --server or --evidence, not both."))
    }
}
