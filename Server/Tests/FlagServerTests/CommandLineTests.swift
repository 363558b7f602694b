import AsyncHTTPClient
import FlagEvaluation
import FlagServer
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import Testing

/// The `flag-server` executable's commands besides `serve`, run as processes: the version, the
/// first start's announcement, and the commands that work on the database directly, on SQLite
/// and PostgreSQL alike.
struct CommandLineTests {
    static var built: Bool { FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path) }

    /// Runs `flag-server` with `arguments` to its end: exit status and output (stdout and stderr).
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let (process, output) = try startFlagServerProcess(arguments)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// The secret a command printed on an indented line of its own.
    static func secret(in output: String) -> String? {
        output.split(separator: "\n").first { $0.hasPrefix("    ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(.enabled(if: built))
    func versionPrintsTheVersion() throws {
        let (status, output) = try Self.run(["--version"])
        #expect(status == 0)
        #expect(output == "flag-server \(FlagServer.version)\n")
    }

    /// The first start names the console by its full address, with the port it will listen on
    /// (printed before it listens: the first start is finished only once its secrets are shown).
    @Test(.enabled(if: built))
    func theFirstStartPrintsTheConsolesFullAddress() async throws {
        let port = try LoopbackPort.unused()
        let (process, output) = try startFlagServerProcess(["serve", "--port", String(port), "--data-directory", TemporaryDirectory().path])
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let text = try await outputUntilListening(output)
        #expect(text.contains("listening on http://127.0.0.1:\(port)"), "\(text)")
        #expect(text.contains("Sign in at http://127.0.0.1:\(port)/console\n"), "\(text)")
        #expect(!text.contains(" at /console"))
    }

    /// `GET /` sends a person to the console.
    @Test
    func theRootRedirectsToTheConsole() async throws {
        try await TestServer.withConsole { server in
            let client = ConsoleClient(server)
            let root = try await client.get("/")
            #expect(root.status == 303)
            #expect(root.location == "/console")
        }
    }

    /// The command-line options that name a fresh database of `kind` (SQLite: a data directory).
    static func options(_ kind: StoreKind) throws -> [String] {
        switch kind {
        case .sqliteMemory, .sqliteFile: return ["--data-directory", TemporaryDirectory().path]
        case .postgres:
            try PostgresTestDatabase.skipUnlessEnabled()
            return ["--database-url", try PostgresTestDatabase.url(schema: PostgresTestDatabase.freshSchema())]
        }
    }

    /// `add-user`, `set-user`, `reset-password` and `add-token` work on the database `serve` uses,
    /// SQLite or PostgreSQL, and the server accepts what they created.
    @Test(.enabled(if: built), arguments: [StoreKind.sqliteFile, .postgres])
    func userAndTokenCommandsWorkOnEitherStore(store: StoreKind) async throws {
        let options = try Self.options(store)
        let added = try Self.run(["add-user", "--name", "alice", "--role", "editor"] + options)
        #expect(added.status == 0, "\(added.output)")
        let password = try #require(Self.secret(in: added.output))
        let again = try Self.run(["add-user", "--name", "alice", "--role", "viewer"] + options)
        #expect(again.status != 0)
        #expect(again.output.contains("exists already"))

        let token = try Self.run(["add-token", "--role", "admin"] + options)
        #expect(token.status == 0, "\(token.output)")
        let adminToken = try #require(Self.secret(in: token.output))
        #expect(adminToken.hasPrefix("ffs_"))
        let client = try Self.run(["add-token", "--role", "client", "--environment", "*"] + options)
        #expect(client.status != 0)
        #expect(client.output.contains("only admin tokens may be for every environment"))
        let unknown = try Self.run(["add-token", "--role", "client", "--environment", "nowhere"] + options)
        #expect(unknown.status != 0)

        let promoted = try Self.run(["set-user", "--name", "alice", "--role", "admin"] + options)
        #expect(promoted.output.contains("role admin, active"), "\(promoted.output)")
        let reset = try Self.run(["reset-password", "--name", "alice"] + options)
        #expect(reset.status == 0, "\(reset.output)")
        let fresh = try #require(Self.secret(in: reset.output))
        #expect(fresh != password)

        // The server started on the same database accepts the token and the new password.
        let server = try await launchFlagServer(["serve", "--port", "0", "--log-level", "info"] + options)
        defer {
            server.process.terminate()
            server.process.waitUntilExit()
        }
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/admin/v1/users")
        request.headers.add(name: "Authorization", value: "Bearer \(adminToken)")
        let response = try await HTTPClient.shared.execute(request, deadline: .now() + .seconds(30))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        #expect(response.status == .ok, "\(body)")
        let users = try JSONValue(parsing: body).arrayValue?.compactMap { $0["name"]?.stringValue }
        // The first start adds its admin only when there is no user yet: alice is there.
        #expect(users == ["alice"])
    }
}
