import FeatureFlags
import FlagServerClient
import FlagTooling
import Foundation
import Testing

/// Every failure of a server exchange is a clear message, and the token never shows.
struct FlagServerClientTests {
    static let token = "ffs_abc123_s3cr3t-token-text"

    func client(_ transport: FakeFlagServerTransport, maximumResponseBytes: Int = 1024) throws -> FlagServerClient {
        try FlagServerClient(
            server: "http://127.0.0.1:8080/", token: Self.token, transport: transport, maximumResponseBytes: maximumResponseBytes)
    }

    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as ToolingError {
            #expect(error.kind == .serverFailure)
            #expect(!error.message.contains(Self.token))
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func definitionsAreReadWithTheTokenFromTheAdminAPI() throws {
        let transport = FakeFlagServerTransport(
            status: 200,
            body: #"[{"key": "checkout", "type": "float", "variants": {"default": 1.5}, "metadata": {"owner": "payments"}}]"#)
        let flags = try client(transport).definitions()
        #expect(flags == [ServerFlag(key: "checkout", type: .float, variants: ["default": 1.5], metadata: .init(owner: "payments"))])
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/admin/v1/flags")
        #expect(request.headers["Authorization"] == "Bearer \(Self.token)")
        #expect(request.maximumResponseBytes == 1024)
    }

    @Test func unauthorizedSaysWhichTokenIsNeeded() throws {
        let transport = FakeFlagServerTransport(
            status: 401, body: #"{"error": {"code": "unauthorized", "message": "unknown token", "problems": []}}"#)
        #expect(
            message { _ = try client(transport).definitions() }
                == #"The server refused the token (401 unauthorized: "unknown token"). Pass a valid token with --token or the FLAGS_SERVER_TOKEN environment variable: reading definitions needs an admin token."#)
        #expect(
            message { _ = try client(transport).register([], dryRun: true) }?
                .hasSuffix(#"registering definitions needs an admin token for all environments ("*")."#) == true)
    }

    @Test func forbiddenSaysWhichRoleIsNeeded() throws {
        let transport = FakeFlagServerTransport(
            status: 403,
            body: #"{"error": {"code": "forbidden", "message": "token \"t1\" is for environment \"staging\"", "problems": []}}"#)
        #expect(
            message { _ = try client(transport).settings(environment: "production") }
                == #"The token may not do this (403 forbidden: "token "t1" is for environment "staging""): reading environment "production" needs an admin token for it or for all environments ("*")."#)
    }

    @Test func aServerErrorIsQuotedWithItsProblems() throws {
        let transport = FakeFlagServerTransport(
            status: 422,
            body: #"""
                {"error": {"code": "invalid", "message": "the write is invalid", "problems": [
                  {"environment": "production", "key": "checkout", "field": "requires", "problem": "\"ghost\" is not a flag"}]}}
                """#)
        #expect(
            message { _ = try client(transport).register([], dryRun: false) }
                == #"""
                The server refused POST /admin/v1/flags (422 invalid: "the write is invalid"
                  "checkout" in environment "production": requires: "ghost" is not a flag).
                """#)
    }

    @Test func aBodyThatIsNotAJSONErrorIsQuotedShortly() throws {
        let transport = FakeFlagServerTransport(status: 502, body: "<html>Bad gateway</html>")
        #expect(
            message { _ = try client(transport).definitions() }
                == #"The server refused GET /admin/v1/flags (502, not a JSON error: "<html>Bad gateway</html>")."#)
    }

    @Test func anUnexpectedAnswerNamesTheField() throws {
        let transport = FakeFlagServerTransport(status: 200, body: #"[{"key": "checkout", "type": "maybe", "variants": {}}]"#)
        let text = message { _ = try client(transport).definitions() }
        #expect(text?.hasPrefix("The server's answer to GET /admin/v1/flags is not what flags expects: [0].type") == true, "\(text ?? "")")
        let notJSON = FakeFlagServerTransport(status: 200, body: "hello")
        #expect(
            message { _ = try client(notJSON).definitions() }
                == "The server's answer to GET /admin/v1/flags is not what flags expects: not valid JSON.")
    }

    @Test func unreachableAndOversizedAnswersAreClear() throws {
        let down = FakeFlagServerTransport([.failure(.unreachable("Could not connect to the server."))])
        #expect(
            message { _ = try client(down).definitions() }
                == "Cannot reach the flag server at http://127.0.0.1:8080/ (GET /admin/v1/flags): Could not connect to the server. Check --server and that the server is running.")
        let large = FakeFlagServerTransport([.failure(.tooLarge(limit: 1024))])
        #expect(
            message { _ = try client(large).definitions() }
                == "The server's answer to GET /admin/v1/flags is larger than 1024 bytes, the limit; nothing was read. Raise it with --max-response-bytes if the server really holds that much.")
    }

    /// A redirect is reported, not followed: the token goes nowhere else.
    @Test func redirectsAreNotFollowed() throws {
        let transport = FakeFlagServerTransport(status: 307, body: "", location: "https://elsewhere.example/admin/v1/flags")
        #expect(
            message { _ = try client(transport).definitions() }
                == #"The server answered GET /admin/v1/flags with 307, a redirect to "https://elsewhere.example/admin/v1/flags"; flags does not follow redirects, so that the token never goes elsewhere. If you trust that address, pass it with --server."#)
        #expect(transport.requests.count == 1)
    }

    /// A server text that echoes the token prints it redacted.
    @Test func theTokenIsRedactedFromServerTexts() throws {
        let transport = FakeFlagServerTransport(
            status: 400, body: #"{"error": {"code": "bad_request", "message": "bad token \#(Self.token)", "problems": []}}"#)
        #expect(
            message { _ = try client(transport).definitions() }
                == #"The server refused GET /admin/v1/flags (400 bad_request: "bad token <REDACTED>")."#)
    }

    /// A short token (not a server's) would garble the message if it were replaced everywhere.
    @Test func aShortTokenDoesNotGarbleMessages() throws {
        let transport = FakeFlagServerTransport(
            status: 401, body: #"{"error": {"code": "unauthorized", "message": "unknown token", "problems": []}}"#)
        let client = try FlagServerClient(server: "http://127.0.0.1:8080", token: "t", transport: transport)
        #expect(
            message { _ = try client.definitions() }?
                .hasPrefix(#"The server refused the token (401 unauthorized: "unknown token")."#) == true)
    }

    @Test func badServerURLsAndMissingTokensAreUsageErrors() {
        #expect(throws: ToolingError(
            .invalidInput, #"--server "ftp://x" is not an http or https URL; pass the server's root, such as https://flags.example.com."#)
        ) {
            try FlagServerClient(server: "ftp://x", token: "t", transport: FakeFlagServerTransport([]))
        }
        #expect(throws: ToolingError(.invalidInput, "No token: pass --token or set the FLAGS_SERVER_TOKEN environment variable.")) {
            try FlagServerClient(server: "http://x", token: "", transport: FakeFlagServerTransport([]))
        }
    }

    @Test func plainHTTPToAnotherMachineIsNoticed() throws {
        func clear(_ server: String) throws -> Bool {
            try FlagServerClient(server: server, token: "t", transport: FakeFlagServerTransport([])).sendsTokenInClear
        }
        #expect(try clear("http://flags.example.com"))
        #expect(try clear("http://10.0.0.2:8080"))
        #expect(try !clear("https://flags.example.com"))
        #expect(try !clear("http://127.0.0.1:8080"))
        #expect(try !clear("http://localhost:8080"))
        #expect(try !clear("http://[::1]:8080"))
    }

    @Test func settingsAreSentOnlyForTheFlagsThatHaveThem() throws {
        let transport = FakeFlagServerTransport(status: 200, body: #"{"dryRun": false, "changes": [], "problems": [], "revisions": {}}"#)
        let flags = [
            ServerFlag(key: "a", type: .boolean, variants: ["on": true, "off": false], defaultVariant: "on"),
            ServerFlag(key: "b", type: .boolean, variants: ["on": true, "off": false], defaultVariant: "off"),
        ]
        _ = try client(transport).register(
            flags, settings: ("staging", ["b": ServerFlagSettings(enabled: true, defaultVariant: "off")]), dryRun: false)
        let body = String(decoding: try #require(transport.requests.first?.body), as: UTF8.self)
        #expect(
            body
                == #"{"flags":[{"defaultVariant":"on","key":"a","metadata":{"conflicts":[],"requires":[],"sensitive":false},"type":"boolean","variants":{"off":false,"on":true}},{"defaultVariant":"off","key":"b","metadata":{"conflicts":[],"requires":[],"sensitive":false},"settings":{"staging":{"defaultVariant":"off","enabled":true}},"type":"boolean","variants":{"off":false,"on":true}}]}"#)
    }

    @Test func registrationSendsDefinitionsAndReadsTheAnswer() throws {
        let transport = FakeFlagServerTransport(
            status: 200,
            body: #"""
                {"dryRun": true, "changes": [{"environment": "production", "subject": "flag", "key": "checkout", "after": {}}],
                 "problems": [{"key": "checkout", "field": "requires", "problem": "\"ghost\" is not a flag"}], "revisions": {}}
                """#)
        let flag = ServerFlag(key: "checkout", type: .boolean, variants: ["on": true, "off": false], defaultVariant: "off")
        let result = try client(transport).register([flag], resetting: ["checkout"], dryRun: true, reason: "release 3.1")
        #expect(result.changes == [.init(environment: "production", subject: "flag", key: "checkout")])
        #expect(result.problems == [#""checkout": requires: "ghost" is not a flag"#])
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "http://127.0.0.1:8080/admin/v1/flags?dryRun=true")
        #expect(request.method == "POST")
        #expect(
            String(decoding: request.body ?? Data(), as: UTF8.self)
                == #"{"flags":[{"defaultVariant":"off","key":"checkout","metadata":{"conflicts":[],"requires":[],"sensitive":false},"resetSettings":true,"type":"boolean","variants":{"off":false,"on":true}}],"reason":"release 3.1"}"#)
    }

    /// The flag's own metadata is read from the server and sent back with a registration.
    @Test func theFlagsOwnMetadataTravelsBothWays() throws {
        let read = FakeFlagServerTransport(
            status: 200,
            body: #"[{"key": "checkout", "type": "boolean", "variants": {"on": true}, "metadata": {"custom": {"team": "payments", "x-rank": 2.5}}}]"#)
        let flags = try client(read).definitions()
        #expect(flags.first?.metadata.custom == ["team": "payments", "x-rank": 2.5])

        let write = FakeFlagServerTransport(status: 200, body: #"{"dryRun": false, "changes": [], "problems": [], "revisions": {}}"#)
        var flag = try #require(flags.first)
        flag.defaultVariant = "on"
        _ = try client(write).register([flag], dryRun: false)
        #expect(
            String(decoding: try #require(write.requests.first?.body), as: UTF8.self)
                == #"{"flags":[{"defaultVariant":"on","key":"checkout","metadata":{"conflicts":[],"custom":{"team":"payments","x-rank":2.5},"requires":[],"sensitive":false},"type":"boolean","variants":{"on":true}}]}"#)
    }
}
