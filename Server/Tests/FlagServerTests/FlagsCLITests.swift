import FlagEvaluation
import FlagServer
import Foundation
import Hummingbird
import Logging
import NIOHTTP1
import ServiceLifecycle
import Testing

/// `flags push`, `pull` and `diff` against a running server: the real `flags` binary as a
/// subprocess, the real server on a loopback port.
///
/// The binary is `FLAGS_TOOL_PATH`, or `<repository>/.build/debug/flags` (built by
/// `swift build` at the repository root, which CI runs before the server's tests).
struct FlagsCLITests {
    struct Run: CustomStringConvertible {
        var status: Int32
        var standardOutput: String
        var standardError: String
        var description: String { "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)" }
    }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var toolPath: String {
        ProcessInfo.processInfo.environment["FLAGS_TOOL_PATH"] ?? repository.appendingPathComponent(".build/debug/flags").path
    }

    /// Runs `flags` without blocking a thread while it runs (the server answers on this process's tasks).
    static func flags(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        let path = toolPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure(
                "The flags tool is not at \(path). Build it first with `swift build --product flags` at the repository root, or point FLAGS_TOOL_PATH at it.")
        }
        let directory = TemporaryDirectory().path
        let outPath = directory + "/stdout"
        let errPath = directory + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        // The server runs in this test process, which other tests may slow down a lot on a busy
        // machine: the tool's own timeout (30 s by default) must not decide a test.
        let talksToServer = ["push", "pull", "diff"].contains(arguments.first ?? "") && !arguments.contains("--timeout")
        process.arguments = arguments + (talksToServer ? ["--timeout", "3600"] : [])
        var variables = ProcessInfo.processInfo.environment
        variables["FLAGS_SERVER_TOKEN"] = nil
        variables.merge(environment) { _, new in new }
        process.environment = variables
        process.standardOutput = out
        process.standardError = err
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        try out.close()
        try err.close()
        return Run(
            status: status, standardOutput: try String(contentsOfFile: outPath, encoding: .utf8),
            standardError: try String(contentsOfFile: errPath, encoding: .utf8))
    }

    /// The app's manifest, as `flags export` writes it (flags sorted by key, so that a pull,
    /// which sorts, gives the same text).
    static let manifest = """
        {
          "$schema": "https://flagd.dev/schema/v0/flags.json",
          "flags": {
            "new_checkout": {
              "state": "ENABLED",
              "variants": {
                "on": true,
                "off": false
              },
              "defaultVariant": "on",
              "metadata": {
                "key": "new_checkout",
                "type": "boolean",
                "displayName": "New checkout",
                "description": "The one-page checkout.",
                "owner": "payments",
                "phase": 3,
                "removalTarget": "4.0",
                "requires": "search"
              }
            },
            "page_size": {
              "state": "ENABLED",
              "variants": {
                "default": 20
              },
              "defaultVariant": "default",
              "metadata": {
                "key": "page_size",
                "type": "integer",
                "displayName": "Page size",
                "owner": "search"
              }
            },
            "search": {
              "state": "ENABLED",
              "variants": {
                "on": true,
                "off": false
              },
              "defaultVariant": "off",
              "metadata": {
                "key": "search",
                "type": "boolean",
                "displayName": "Search",
                "sensitive": true
              }
            }
          }
        }

        """

    static func write(_ text: String) throws -> String {
        let path = TemporaryDirectory().path + "/flags.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func revisions(_ server: TestServer) async throws -> JSONValue? {
        try await server.request(.GET, "/admin/v1/environments", token: server.adminToken).json
    }

    /// `flags lint`, `refs` and `remove` read the server's removal evidence with the token from
    /// the variable `--token-env` names, and never print it.
    @Test
    func lintRefsAndRemoveCiteTheServersEvidence() async throws {
        let moment = Date()
        let now = Int64(moment.timeIntervalSince1970 * 1000)
        let day = RollupGranularity.day.milliseconds
        let start = RollupGranularity.day.bucket(of: now) - 30 * day
        var store = FixedRowsEventStore()
        store.rollups["production"] = (Int64(0)...30).map { offset in
            EvaluationRollup(
                bucket: start + offset * day, flag: "new_checkout", variant: "on", reason: "STATIC", appVersion: "3.2", platform: "iOS",
                evaluations: 10, exposures: 2)
        } + ["on", "off"].map { variant in
            EvaluationRollup(
                bucket: start + 30 * day, flag: "search", variant: variant, reason: "SPLIT", appVersion: "3.2", platform: "iOS",
                evaluations: 1, exposures: 1)
        }
        store.lastEvaluated["production"] = ["new_checkout": now, "search": now, "page_size": now - 40 * day]
        try await TestServer.with(eventStore: store, now: { moment }) { server in
            let manifest = try Self.write(Self.manifest)
            let push = try await Self.flags(["push", "--manifest", manifest, "--server", server.baseURL, "--token", server.adminToken])
            #expect(push.status == 0, "\(push)")
            let sources = TemporaryDirectory().path
            try "let checkout = flags.isEnabled(.newCheckout)\n".write(toFile: sources + "/Checkout.swift", atomically: true, encoding: .utf8)
            let evidence = ["--server", server.baseURL, "--token-env", "EVIDENCE_TOKEN", "--environment", "production", "--timeout", "3600"]
            let token = ["EVIDENCE_TOKEN": server.adminToken]
            let since = ServerEvidenceDay.text(start)

            let lint = try await Self.flags(["lint", "--manifest", manifest, "--app-version", "3.0"] + evidence, environment: token)
            #expect(lint.status == 0, "\(lint)")
            #expect(lint.standardOutput.contains(
                #"warning: [settled] 'new_checkout' is settled in production: every unit was served "on" for 30 days, since \#(since), on app version 3.2 (310 evaluations, 62 exposures, 0 unit-days). Remove it keeping that variant: flags remove new_checkout --keep on."#),
                "\(lint)")
            #expect(lint.standardOutput.contains("warning: [unused] 'page_size' is unused in production: nothing evaluated it for 30 days"), "\(lint)")
            #expect(!lint.standardOutput.contains("'search' is"), "\(lint)")

            let refs = try await Self.flags(["refs", "--manifest", manifest, "--sources", sources] + evidence, environment: token)
            #expect(refs.status == 0, "\(refs)")
            #expect(refs.standardOutput.contains("Unused or settled in production, from the server's events over 30 days (2):"), "\(refs)")
            #expect(refs.standardOutput.contains("; 1 reference\n    \(sources)/Checkout.swift:1\n"), "\(refs)")

            let remove = try await Self.flags(
                ["remove", "new_checkout", "--keep", "off", "--manifest", manifest, "--sources", sources, "--dry-run"] + evidence,
                environment: token)
            #expect(remove.standardOutput.contains(
                #"evidence: 'new_checkout' is settled in production: every unit was served "on" for 30 days, since \#(since), on app version 3.2"#),
                "\(remove)")
            #expect(remove.standardOutput.contains(
                "warning: every unit was served on, but this removal keeps off: their behaviour changes. Keep on with --keep on.\n"), "\(remove)")
            for run in [lint, refs, remove] {
                #expect(!run.standardOutput.contains(server.adminToken) && !run.standardError.contains(server.adminToken))
            }

            let noToken = try await Self.flags(["lint", "--manifest", manifest, "--app-version", "3.0"] + evidence)
            #expect(noToken.status == 2)
            #expect(noToken.standardError.contains(#"No token: set the environment variable EVIDENCE_TOKEN to an admin token of "production"."#))
        }
    }

    @Test
    func pushPullAndDiffRoundTrip() async throws {
        try await TestServer.with { server in
            let manifest = try Self.write(Self.manifest)
            let base = ["--server", server.baseURL, "--token", server.adminToken]

            let push = try await Self.flags(["push", "--manifest", manifest] + base)
            #expect(push.status == 0, "\(push)")
            #expect(
                push.standardOutput == """
                    + new_checkout (in code, not on the server)
                    + page_size (in code, not on the server)
                    + search (in code, not on the server)
                    3 added, 0 changed, 0 type mismatches, 0 only on the server.
                    Registered 3 flags (9 changes in 3 environments); new revisions: development 2, production 2, staging 2.

                    """, "\(push)")
            #expect(!push.standardOutput.contains(server.adminToken) && !push.standardError.contains(server.adminToken))
            // Settings are the server's: new flags start off, on their code default.
            let production = try await server.request(
                .GET, "/admin/v1/environments/production/flags/new_checkout", token: server.adminToken)
            #expect(production.json?["settings"] == ["enabled": false, "defaultVariant": "on"])

            let pulledPath = TemporaryDirectory().path + "/pulled.json"
            let pull = try await Self.flags(["pull", "--output", pulledPath] + base)
            #expect(pull.status == 0, "\(pull)")
            #expect(try String(contentsOfFile: pulledPath, encoding: .utf8) == Self.manifest)

            let clean = try await Self.flags(["diff", "--manifest", manifest] + base)
            #expect(clean.status == 0, "\(clean)")
            #expect(clean.standardOutput == "No differences.\n")

            let changed = try Self.write(
                Self.manifest.replacingOccurrences(of: #""owner": "search""#, with: #""owner": "discovery""#))
            let diff = try await Self.flags(["diff", "--manifest", changed] + base)
            #expect(diff.status == 1, "\(diff)")
            #expect(
                diff.standardOutput == """
                    ~ page_size
                        owner: code "discovery", server "search"
                    0 added, 1 changed, 0 type mismatches, 0 only on the server.

                    """)
            let json = try await Self.flags(["diff", "--manifest", changed, "--json"] + base)
            #expect(json.status == 1)
            #expect(
                json.standardOutput
                    == #"{"added":[],"changed":[{"changes":[{"code":"\"discovery\"","field":"owner","server":"\"search\""}],"key":"page_size"}],"equal":false,"removed":[],"typeMismatches":[]}"# + "\n")

            // A change leaves the settings alone.
            let enable = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/page_size/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "default"}"#)
            #expect(enable.status == 200)
            let pushChange = try await Self.flags(["push", "--manifest", changed] + base)
            #expect(pushChange.status == 0, "\(pushChange)")
            let after = try await server.request(
                .GET, "/admin/v1/environments/production/flags/page_size", token: server.adminToken)
            #expect(after.json?["settings"]?["enabled"] == true)
            #expect(after.json?["flag"]?["metadata"]?["owner"] == "discovery")
            #expect(try await Self.flags(["diff", "--manifest", changed] + base).status == 0)
        }
    }

    /// Variants added on the server to a non-Boolean flag (a rollout), and the settings serving
    /// them, survive pushes of the app's contract; a flag created on the server only is left
    /// alone; a pull then compares clean and pushes nothing.
    @Test
    func variantsAddedOnTheServerSurviveAPushAndAPullDiffsClean() async throws {
        try await TestServer.with { server in
            let manifest = try Self.write(Self.manifest)
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            let first = try await Self.flags(["push", "--manifest", manifest] + base)
            #expect(first.status == 0, "\(first)")

            // An operator gives page_size two more variants and serves one in production.
            let registered = try #require(try await server.request(.GET, "/admin/v1/flags/page_size", token: server.adminToken).json)
            let variants: JSONValue = ["default": 20, "large": 100, "small": 5]
            let define = try await server.request(
                .PUT, "/admin/v1/flags/page_size", token: server.adminToken,
                body: JSONValue.object([
                    "type": "integer", "variants": variants, "metadata": registered["metadata"] ?? [:],
                ]).serialized())
            #expect(define.status == 200, "\(define.body)")
            let serve = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/page_size/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "large"}"#)
            #expect(serve.status == 200, "\(serve.body)")
            // And another team's flag, created on the server with several variants and no code default.
            let theme = try await server.request(
                .PUT, "/admin/v1/flags/theme", token: server.adminToken,
                body: #"{"type": "string", "variants": {"dark": "dark", "light": "light", "system": "system"}}"#)
            #expect(theme.status == 200, "\(theme.body)")

            let again = try await Self.flags(["push", "--manifest", manifest] + base)
            #expect(again.status == 0, "\(again)")
            #expect(
                again.standardOutput == """
                    - theme (on the server, not in code)
                    0 added, 0 changed, 0 type mismatches, 1 only on the server.
                    Nothing to register.

                    """, "\(again)")

            // A changed contract is written over the server's variants, keeping them and the settings.
            let changed = try Self.write(
                Self.manifest.replacingOccurrences(of: #""owner": "search""#, with: #""owner": "discovery""#))
            let push = try await Self.flags(["push", "--manifest", changed] + base)
            #expect(push.status == 0, "\(push)")
            let production = try await server.request(
                .GET, "/admin/v1/environments/production/flags/page_size", token: server.adminToken)
            #expect(production.json?["flag"]?["variants"] == variants)
            #expect(production.json?["flag"]?["defaultVariant"] == "default")
            #expect(production.json?["flag"]?["metadata"]?["owner"] == "discovery")
            #expect(production.json?["settings"]?["enabled"] == true)
            #expect(production.json?["settings"]?["defaultVariant"] == "large")

            // A code default another variant holds names it; nothing is overwritten.
            let larger = try Self.write(
                Self.manifest.replacingOccurrences(of: #""default": 20"#, with: #""default": 100"#)
                    .replacingOccurrences(of: #""owner": "search""#, with: #""owner": "discovery""#))
            let pushLarger = try await Self.flags(["push", "--manifest", larger] + base)
            #expect(pushLarger.status == 0, "\(pushLarger)")
            let afterLarger = try await server.request(.GET, "/admin/v1/flags/page_size", token: server.adminToken)
            #expect(afterLarger.json?["variants"] == variants)
            #expect(afterLarger.json?["defaultVariant"] == "large")

            let pulled = try await Self.flags(["pull"] + base)
            #expect(pulled.status == 0, "\(pulled)")
            let pulledPath = try Self.write(pulled.standardOutput)
            let diff = try await Self.flags(["diff", "--manifest", pulledPath] + base)
            #expect(diff.status == 0, "\(diff)")
            #expect(diff.standardOutput == "No differences.\n", "\(diff)")
            let nothing = try await Self.flags(["push", "--manifest", pulledPath] + base)
            #expect(nothing.standardOutput == "No differences.\nNothing to register.\n", "\(nothing)")
        }
    }

    /// A flag's own metadata (`metadata.custom`: flagd metadata an import brought, tags set in the
    /// console) survives a push that changes the flag; a pull writes its `x-` keys (and names the
    /// keys a manifest cannot hold), so the pulled manifest diffs clean; a changed annotation is a
    /// difference, and pushing it changes that key only.
    @Test
    func theFlagsOwnMetadataRoundTripsThroughPushPullAndDiff() async throws {
        try await TestServer.with { server in
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            #expect(try await Self.flags(["push", "--manifest", try Self.write(Self.manifest)] + base).status == 0)
            let registered = try #require(try await server.request(.GET, "/admin/v1/flags/page_size", token: server.adminToken).json)
            var metadata = registered["metadata"]?.objectValue ?? [:]
            metadata["custom"] = ["team": "growth", "x-tags": "beta,search", "x-ticket": 12]
            let define = try await server.request(
                .PUT, "/admin/v1/flags/page_size", token: server.adminToken,
                body: JSONValue.object(["type": "integer", "variants": ["default": 20], "metadata": .object(metadata)]).serialized())
            #expect(define.status == 200, "\(define.body)")
            let custom: JSONValue = ["team": "growth", "x-tags": "beta,search", "x-ticket": 12]

            // A push that changes the flag keeps its own metadata.
            let changed = try Self.write(
                Self.manifest.replacingOccurrences(of: #""owner": "search""#, with: #""owner": "discovery""#))
            let push = try await Self.flags(["push", "--manifest", changed] + base)
            #expect(push.status == 0, "\(push)")
            let pushed = try await server.request(.GET, "/admin/v1/flags/page_size", token: server.adminToken)
            #expect(pushed.json?["metadata"]?["owner"] == "discovery")
            #expect(pushed.json?["metadata"]?["custom"] == custom, "\(pushed.body)")

            // A pull writes the x- keys and names the one a manifest cannot hold.
            let pull = try await Self.flags(["pull"] + base)
            #expect(pull.status == 0, "\(pull)")
            #expect(pull.standardOutput.contains(
                #""owner": "discovery",\#n        "x-tags": "beta,search",\#n        "x-ticket": 12\#n"#), "\(pull)")
            #expect(!pull.standardOutput.contains("growth"), "\(pull)")
            #expect(pull.standardError.contains(
                #""page_size": the server's metadata key "team" is not written: a manifest holds only registry fields and x- keys (flags push keeps it on the server)."#),
                "\(pull)")
            let pulled = try Self.write(pull.standardOutput)
            let clean = try await Self.flags(["diff", "--manifest", pulled] + base)
            #expect(clean.status == 0, "\(clean)")
            #expect(clean.standardOutput == "No differences.\n", "\(clean)")

            // A changed or new annotation is a difference; a push sets it and keeps the rest.
            let annotated = try Self.write(
                try String(contentsOfFile: pulled, encoding: .utf8)
                    .replacingOccurrences(of: #""x-tags": "beta,search""#, with: #""x-tags": "search""#)
                    .replacingOccurrences(of: #""displayName": "Search","#, with: #""displayName": "Search", "x-review": true,"#))
            let diff = try await Self.flags(["diff", "--manifest", annotated] + base)
            #expect(diff.status == 1, "\(diff)")
            #expect(
                diff.standardOutput == """
                    ~ page_size
                        x-tags: code "search", server "beta,search"
                    ~ search
                        x-review: code true, server null
                    0 added, 2 changed, 0 type mismatches, 0 only on the server.

                    """, "\(diff)")
            let pushAnnotated = try await Self.flags(["push", "--manifest", annotated] + base)
            #expect(pushAnnotated.status == 0, "\(pushAnnotated)")
            let after = try await server.request(.GET, "/admin/v1/flags/page_size", token: server.adminToken)
            #expect(after.json?["metadata"]?["custom"] == ["team": "growth", "x-tags": "search", "x-ticket": 12], "\(after.body)")
            let search = try await server.request(.GET, "/admin/v1/flags/search", token: server.adminToken)
            #expect(search.json?["metadata"]?["custom"] == ["x-review": true], "\(search.body)")
            #expect(try await Self.flags(["diff", "--manifest", annotated] + base).status == 0)
        }
    }

    @Test
    func aDryRunWritesNothing() async throws {
        try await TestServer.with { server in
            let manifest = try Self.write(Self.manifest)
            let before = try await Self.revisions(server)
            let run = try await Self.flags([
                "push", "--manifest", manifest, "--dry-run", "--server", server.baseURL, "--token", server.adminToken,
            ])
            #expect(run.status == 0, "\(run)")
            #expect(run.standardOutput.hasSuffix("Dry run: the server would make 9 changes in 3 environments; nothing was written.\n"))
            #expect(try await Self.revisions(server) == before)
            #expect(try await server.request(.GET, "/admin/v1/flags", token: server.adminToken).json == [])

            let json = try await Self.flags([
                "push", "--manifest", manifest, "--dry-run", "--json", "--server", server.baseURL, "--token", server.adminToken,
            ])
            #expect(json.status == 0, "\(json)")
            let report = try JSONValue(parsing: json.standardOutput)
            #expect(report["dryRun"] == true && report["written"] == false)
            #expect(report["changes"]?.arrayValue?.count == 9)
            #expect(try await Self.revisions(server) == before)
        }
    }

    /// The example app's registry (44 flags: Booleans, typed values, objects, dependencies),
    /// read from its Swift sources, survives the server: push, diff clean, pull, diff clean.
    @Test
    func aSwiftDeclaredRegistryRoundTrips() async throws {
        try await TestServer.with { server in
            let sources = Self.repository.appendingPathComponent("Examples/ExampleFlags").path
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            let push = try await Self.flags(["push", "--sources", sources, "--json"] + base)
            #expect(push.status == 0, "\(push)")
            let report = try JSONValue(parsing: push.standardOutput)
            #expect(report["written"] == true)
            #expect(report["diff"]?["added"]?.arrayValue?.count == 44)
            #expect(report["revisions"] == ["development": 2, "production": 2, "staging": 2])

            let diff = try await Self.flags(["diff", "--sources", sources] + base)
            #expect(diff.status == 0, "\(diff)")
            let pulled = try Self.write(try await Self.flags(["pull"] + base).standardOutput)
            let again = try await Self.flags(["diff", "--manifest", pulled] + base)
            #expect(again.status == 0, "\(again)")
            let nothing = try await Self.flags(["push", "--manifest", pulled] + base)
            #expect(nothing.standardOutput == "No differences.\nNothing to register.\n", "\(nothing)")
        }
    }

    /// `--settings ENV` sets on/off and the default variant there, as the manifest says, keeping
    /// targeting; other environments stay as they are.
    @Test
    func settingsArePushedOnlyWhenAsked() async throws {
        try await TestServer.with { server in
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            #expect(try await Self.flags(["push", "--manifest", try Self.write(Self.manifest)] + base).status == 0)
            let rule = try await server.request(
                .PUT, "/admin/v1/environments/staging/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": false, "defaultVariant": "off", "targeting": {"if": [true, "on", null]}}"#)
            #expect(rule.status == 200)
            let staged = try Self.write(
                Self.manifest.replacingOccurrences(of: #""state": "ENABLED""#, with: #""state": "DISABLED""#)
                    .replacingOccurrences(
                        of: #""state": "DISABLED",\#n      "variants": {\#n        "on": true,\#n        "off": false\#n      },\#n      "defaultVariant": "off""#,
                        with: #""state": "ENABLED",\#n      "variants": {\#n        "on": true,\#n        "off": false\#n      },\#n      "defaultVariant": "off""#))
            let push = try await Self.flags(["push", "--manifest", staged, "--settings", "staging"] + base)
            #expect(push.status == 0, "\(push)")
            #expect(
                push.standardOutput == """
                    No differences.
                    Settings in staging (targeting kept):
                      search: on, default variant "off" (server: off, default variant "off")
                    Registered 1 flag (1 change in 1 environment); new revisions: staging 4.

                    """, "\(push)")
            let staging = try await server.request(.GET, "/admin/v1/environments/staging/flags/search", token: server.adminToken)
            #expect(staging.json?["settings"] == ["enabled": true, "defaultVariant": "off", "targeting": ["if": [true, "on", .null]]])
            let production = try await server.request(.GET, "/admin/v1/environments/production/flags/search", token: server.adminToken)
            #expect(production.json?["settings"]?["enabled"] == false)
            let again = try await Self.flags(["push", "--manifest", staged, "--settings", "staging"] + base)
            #expect(again.standardOutput == "No differences.\nSettings in staging: no differences.\nNothing to register.\n", "\(again)")
        }
    }

    @Test
    func aTypeMismatchIsRefusedUnlessForced() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("page_size", environment: "production", enabled: true, defaultVariant: "on")
            let manifest = try Self.write(Self.manifest)
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            let before = try await Self.revisions(server)

            let refused = try await Self.flags(["push", "--manifest", manifest] + base)
            #expect(refused.status == 1, "\(refused)")
            #expect(refused.standardOutput.hasPrefix("! page_size: type integer in code, boolean on the server\n"))
            #expect(
                refused.standardError
                    == #"error: Refused: "page_size" is an integer in code and a boolean on the server. Nothing was written. Fix the type in code, or pass --allow-type-change to replace the server's definition (the flag is switched off in every environment)."#
                    + "\n")
            #expect(try await Self.revisions(server) == before)
            let diff = try await Self.flags(["diff", "--manifest", manifest] + base)
            #expect(diff.status == 1)

            let forced = try await Self.flags(["push", "--manifest", manifest, "--allow-type-change"] + base)
            #expect(forced.status == 0, "\(forced)")
            let flag = try await server.request(.GET, "/admin/v1/environments/production/flags/page_size", token: server.adminToken)
            #expect(flag.json?["flag"]?["type"] == "integer")
            #expect(flag.json?["settings"] == ["enabled": false, "defaultVariant": "default"])
        }
    }

    /// A flag created on the server with variants of its own, one of them the code default's
    /// value and another served in production: the push used to replace the variants, leave
    /// production on a variant that no longer existed and be refused whole by the server's dry
    /// run. It now records the code default on the variant holding it and keeps the rest.
    @Test
    func aPushOverVariantsCreatedOnTheServerKeepsThem() async throws {
        try await TestServer.with { server in
            let created = try await server.request(
                .PUT, "/admin/v1/flags/page_size", token: server.adminToken,
                body: #"{"type": "integer", "variants": {"small": 20, "large": 50}, "defaultVariant": "large"}"#)
            #expect(created.status == 200)
            let serve = try await server.request(
                .PUT, "/admin/v1/environments/production/flags/page_size/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "large"}"#)
            #expect(serve.status == 200, "\(serve.body)")
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            let push = try await Self.flags(["push", "--manifest", try Self.write(Self.manifest)] + base)
            #expect(push.status == 0, "\(push)")
            let production = try await server.request(
                .GET, "/admin/v1/environments/production/flags/page_size", token: server.adminToken)
            #expect(production.json?["flag"]?["variants"] == ["small": 20, "large": 50])
            #expect(production.json?["flag"]?["defaultVariant"] == "small")
            #expect(production.json?["settings"] == ["enabled": true, "defaultVariant": "large"])
            let diff = try await Self.flags(["diff", "--manifest", try Self.write(Self.manifest)] + base)
            #expect(diff.standardOutput == "No differences.\n", "\(diff)")
        }
    }

    @Test
    func wrongTokensGetClearMessages() async throws {
        try await TestServer.with { server in
            let manifest = try Self.write(Self.manifest)
            let wrong = "ffs_nobody_not-a-real-secret"
            let unknown = try await Self.flags(["diff", "--manifest", manifest, "--server", server.baseURL, "--token", wrong])
            #expect(unknown.status == 3)
            #expect(
                unknown.standardError
                    == #"error: The server refused the token (401 unauthorized: "unknown token"). Pass a valid token with --token or the FLAGS_SERVER_TOKEN environment variable: reading definitions needs an admin token."#
                    + "\n")
            #expect(!unknown.standardError.contains(wrong) && unknown.standardOutput.isEmpty)

            // A production admin token may read, not register for every environment; from the environment variable.
            let production = try await server.token(.admin, environment: "production")
            let push = try await Self.flags(
                ["push", "--manifest", manifest, "--server", server.baseURL], environment: ["FLAGS_SERVER_TOKEN": production])
            #expect(push.status == 3, "\(push)")
            #expect(push.standardError.hasPrefix("error: The token may not do this (403 forbidden: "), "\(push)")
            #expect(push.standardError.hasSuffix(#": registering definitions needs an admin token for all environments ("*")."# + "\n"))
            #expect(!push.standardError.contains(production))

            let missing = try await Self.flags(["pull", "--server", server.baseURL])
            #expect(missing.status == 2)
            #expect(missing.standardError == "error: No token: pass --token or set the FLAGS_SERVER_TOKEN environment variable.\n")
        }
    }

    @Test
    func pullWithAnEnvironmentTakesItsSettings() async throws {
        try await TestServer.with { server in
            let manifest = try Self.write(Self.manifest)
            let base = ["--server", server.baseURL, "--token", server.adminToken]
            #expect(try await Self.flags(["push", "--manifest", manifest] + base).status == 0)
            let enable = try await server.request(
                .PUT, "/admin/v1/environments/staging/flags/search/settings", token: server.adminToken,
                body: #"{"enabled": true, "defaultVariant": "on"}"#)
            #expect(enable.status == 200)
            let pull = try await Self.flags(["pull", "--environment", "staging"] + base)
            #expect(pull.status == 0, "\(pull)")
            #expect(pull.standardOutput.contains(#""defaultVariant": "on","#))
            // new_checkout and page_size are off in staging.
            #expect(pull.standardOutput.components(separatedBy: #""state": "DISABLED""#).count == 3)
            let lint = try Self.write(pull.standardOutput)
            #expect(try await Self.flags(["lint", "--manifest", lint, "--app-version", "1.0"]).status == 0)
        }
    }

    @Test
    func unreachableAndOversizedAnswersAreErrors() async throws {
        try await TestServer.with { server in
            let tooSmall = try await Self.flags([
                "pull", "--server", server.baseURL, "--token", server.adminToken, "--max-response-bytes", "1",
            ])
            #expect(tooSmall.status == 3)
            #expect(
                tooSmall.standardError
                    == "error: The server's answer to GET /admin/v1/flags is larger than 1 bytes, the limit; nothing was read. Raise it with --max-response-bytes if the server really holds that much.\n")
        }
        let down = try await Self.flags(["pull", "--server", "http://127.0.0.1:9", "--token", "t"])
        #expect(down.status == 3)
        #expect(down.standardError.hasPrefix("error: Cannot reach the flag server at http://127.0.0.1:9 (GET /admin/v1/flags): "), "\(down)")
    }

    /// A server that redirects to the real one: `flags` reports the redirect and does not follow
    /// it, so the token never reaches another origin.
    @Test
    func redirectsAreNotFollowed() async throws {
        try await TestServer.with { server in
            let target = server.baseURL + "/admin/v1/flags"
            let router = Router()
            router.get("/admin/v1/flags") { _, _ in
                Response(status: .temporaryRedirect, headers: [.location: target])
            }
            let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
            let redirector = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) })
            let group = ServiceGroup(configuration: .init(services: [redirector], logger: Logger(label: "redirector")))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                var iterator = ports.makeAsyncIterator()
                let port = try #require(await iterator.next())
                let run = try await Self.flags(["pull", "--server", "http://127.0.0.1:\(port)", "--token", server.adminToken])
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                #expect(run.status == 3, "\(run)")
                #expect(
                    run.standardError
                        == #"error: The server answered GET /admin/v1/flags with 307, a redirect to "\#(target)"; flags does not follow redirects, so that the token never goes elsewhere. If you trust that address, pass it with --server."#
                        + "\n")
            }
        }
    }
}

/// A day as `flags` prints evidence days: `2026-11-03` (UTC).
enum ServerEvidenceDay {
    static func text(_ time: Int64) -> String {
        ISO8601DateFormatter.string(
            from: Date(timeIntervalSince1970: TimeInterval(time) / 1000), timeZone: TimeZone(identifier: "UTC")!,
            formatOptions: [.withFullDate])
    }
}
