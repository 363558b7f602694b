import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
@testable import FlagServerModel
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Testing

/// A relay (``FlagRelay``) on a loopback port, following `upstream`, torn down after the body.
struct TestRelay {
    let relay: FlagRelay
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(port)" }

    func request(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: String? = nil, headers: [(String, String)] = []
    ) async throws -> TestServer.Reply {
        try await TestServer.request(baseURL: baseURL, method, path, token: token, body: body, headers: headers)
    }

    func openStream(token: String) async throws -> HTTPClientResponse {
        try await TestServer.openStream(baseURL: baseURL, token: token)
    }

    static func with<T: Sendable>(
        following upstream: String, token: String, _ body: (TestRelay) async throws -> T
    ) async throws -> T {
        var options = try RelayFollower.Options(upstream: try #require(URL(string: upstream)), token: token)
        // Reconnect soon after a loss; no periodic feed request (the tests trigger every change).
        options.backoff = (.milliseconds(20), .milliseconds(200))
        options.tokenRefresh = .seconds(3600)
        let relay = FlagRelay(options: options, limits: .forTests, rateLimiter: nil, logger: Logger(label: "test.relay"))
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = relay.application(host: "127.0.0.1", port: 0) { port in portContinuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test")))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw CancellationError() }
            do {
                let result = try await body(TestRelay(relay: relay, port: port))
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}

/// An upstream server whose process-like lifetime the test controls: it can stop listening and
/// start again on the same port over the same store.
final class StoppableUpstream: Sendable {
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int

    init(_ server: FlagServer, port: Int = 0) async throws {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.application(host: "127.0.0.1", port: port) { port in portContinuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: Logger(label: "test.upstream")))
        self.group = group
        task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        self.port = port
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

struct RelayTests {
    static let proContext = #"{"context": {"targetingKey": "user-1", "plan": "pro"}}"#
    static let freeContext = #"{"context": {"targetingKey": "user-2", "plan": "free"}}"#
    static let targeting = #"{"if": [{"==": [{"var": "plan"}, "pro"]}, "on", "off"]}"#

    @Test
    func aRelayAnswersAsTheServerDoes() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            try await server.booleanFlag("beta", defaultVariant: "off", targeting: Self.targeting)
            let client = try await server.token(.client, environment: "production")
            let follower = try await server.token(.server, environment: "production", name: "relay")
            try await TestRelay.with(following: server.baseURL, token: follower) { relay in
                await relay.relay.readiness.wait(untilReady: true)
                for (path, body) in [
                    ("/ofrep/v1/evaluate/flags", Self.proContext), ("/ofrep/v1/evaluate/flags", Self.freeContext),
                    ("/ofrep/v1/evaluate/flags/beta", Self.proContext), ("/ofrep/v1/evaluate/flags/checkout", Self.freeContext),
                    ("/ofrep/v1/evaluate/flags/missing", Self.freeContext),
                ] {
                    let expected = try await server.request(.POST, path, token: client, body: body)
                    let relayed = try await relay.request(.POST, path, token: client, body: body)
                    #expect(relayed.status == expected.status, "\(path)")
                    #expect(relayed.json == expected.json, "\(path)")
                    #expect(relayed.header("ETag") == expected.header("ETag"), "\(path)")
                }
                // The same conditional answer: the bulk ETag names the revision and the context.
                let etag = try #require(
                    try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.proContext).header("ETag"))
                let unchanged = try await relay.request(
                    .POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.proContext, headers: [("If-None-Match", etag)])
                #expect(unchanged.status == 304)
                for (path, token) in [("/rpc/app_config", client), ("/flagd/v1/flags.json", follower)] {
                    let expected = try await server.request(.GET, path, token: token)
                    let relayed = try await relay.request(.GET, path, token: token)
                    #expect(relayed.status == 200, "\(path)")
                    #expect(relayed.body == expected.body, "\(path)")
                    #expect(relayed.header("ETag") == expected.header("ETag"), "\(path)")
                }
                // A browser reads ETag and Retry-After from the relay as from the server, on a 200 and
                // on an error (the relay's router once lacked the middleware that says so).
                for token in [client, client + "0"] {
                    let origin = [("Origin", "https://app.example")]
                    let expected = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: Self.proContext, headers: origin)
                    let relayed = try await relay.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: Self.proContext, headers: origin)
                    #expect(relayed.status == expected.status)
                    #expect(relayed.header("Access-Control-Expose-Headers") == "ETag, Retry-After")
                    #expect(relayed.header("Access-Control-Expose-Headers") == expected.header("Access-Control-Expose-Headers"))
                }
                // The relay knows the environment's delivery tokens only: no admin token, no admin API.
                #expect(try await relay.request(.POST, "/ofrep/v1/evaluate/flags", token: server.adminToken, body: Self.proContext).status == 401)
                #expect(try await relay.request(.POST, "/ofrep/v1/evaluate/flags", token: client + "0", body: Self.proContext).status == 401)
                #expect(try await relay.request(.GET, "/admin/v1/flags", token: server.adminToken).status == 404)
                // A client token cannot read the feed (it holds the environment's token digests).
                #expect(try await relay.request(.GET, "/relay/v1/environment", token: client).status == 403)
                #expect(try await server.request(.GET, "/relay/v1/environment", token: client).status == 403)
            }
        }
    }

    @Test
    func aChangeOnTheServerReachesTheEventStreamOfARelayFollowingARelay() async throws {
        try await TestServer.with { server in
            let client = try await server.token(.client, environment: "production")
            let follower = try await server.token(.server, environment: "production", name: "relay")
            try await TestRelay.with(following: server.baseURL, token: follower) { first in
                try await TestRelay.with(following: first.baseURL, token: follower) { second in
                    await second.relay.readiness.wait(untilReady: true)
                    var stream = EventStreamReader(try await second.openStream(token: client))
                    #expect(try await stream.next(containing: "at revision 1") != nil)

                    try await server.booleanFlag("checkout", targeting: Self.targeting)
                    var last: EventStreamReader.Event?
                    while last?.id != "3" { last = try await stream.nextEvent() }
                    #expect(last?.data?.hasPrefix(#"{"etag":"3","lastModified":"#) == true)
                    let expected = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.proContext)
                    let relayed = try await second.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.proContext)
                    #expect(relayed.json == expected.json)
                    #expect(relayed.header("ETag") == expected.header("ETag"))
                    // A token revoked upstream stops working at the relays with the next feed.
                    let revoked = try await server.token(.client, environment: "production", name: "to-revoke")
                    try await first.relay.follower.fetchFeedNow()
                    try await second.relay.follower.fetchFeedNow()
                    #expect(try await second.request(.POST, "/ofrep/v1/evaluate/flags", token: revoked, body: Self.proContext).status == 200)
                    let id = try #require(TokenIssuer.id(of: revoked))
                    #expect(try await server.request(.DELETE, "/admin/v1/tokens/\(id)", token: server.adminToken).status == 204)
                    try await first.relay.follower.fetchFeedNow()
                    try await second.relay.follower.fetchFeedNow()
                    #expect(try await second.request(.POST, "/ofrep/v1/evaluate/flags", token: revoked, body: Self.proContext).status == 401)
                }
            }
        }
    }

    @Test
    func aRelayThatLosesItsUpstreamKeepsServingSaysSoAndRecovers() async throws {
        let store = try await SQLiteFlagStore(path: nil)
        let (firstServer, bootstrap) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests, rateLimiter: nil))
        let adminToken = try #require(bootstrap?.adminToken)
        let upstream = try await StoppableUpstream(firstServer)
        let server = TestServer(server: firstServer, port: upstream.port, adminToken: adminToken)
        try await server.booleanFlag("checkout")
        let client = try await server.token(.client, environment: "production")
        let follower = try await server.token(.server, environment: "production", name: "relay")
        try await TestRelay.with(following: server.baseURL, token: follower) { relay in
            await relay.relay.readiness.wait(untilReady: true)
            var stream = EventStreamReader(try await relay.openStream(token: client))
            #expect(try await stream.next(containing: "at revision 3") != nil)
            let before = try await relay.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.freeContext)

            await upstream.stop()
            await relay.relay.readiness.wait(untilStale: true)
            let during = try await relay.request(.POST, "/ofrep/v1/evaluate/flags", token: client, body: Self.freeContext)
            #expect(during.status == 200)
            #expect(during.json == before.json)
            let ready = try await relay.request(.GET, "/health/ready")
            #expect(ready.status == 200)
            #expect(ready.json?["status"] == "stale")

            // The upstream comes back (the same store, the same port) with a change made meanwhile.
            let (secondServer, _) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests, rateLimiter: nil))
            let restarted = try await StoppableUpstream(secondServer, port: upstream.port)
            let again = TestServer(server: secondServer, port: restarted.port, adminToken: adminToken)
            try await again.booleanFlag("later")
            await relay.relay.readiness.wait(untilStale: false)
            var last: EventStreamReader.Event?
            while last?.id != "5" { last = try await stream.nextEvent() }
            let after = try await relay.request(.POST, "/ofrep/v1/evaluate/flags/later", token: client, body: Self.freeContext)
            #expect(after.json?["value"] == true)
            #expect(try await relay.request(.GET, "/health/ready").json == ["status": "ready"])
            await restarted.stop()
        }
        await store.close()
    }

    @Test
    func aFeedThatCannotBeServedLeavesTheServedStateAsItWas() throws {
        let options = try RelayFollower.Options(upstream: try #require(URL(string: "http://127.0.0.1:1")), token: "t")
        let relay = FlagRelay(options: options, rateLimiter: nil)
        func feed(_ key: String, revision: Int, bucketing: FractionalBucketing = .current) -> RelayFeed {
            RelayFeed(
                environment: EnvironmentState(key: key, revision: revision), flags: [:], lastModified: nil,
                fractionalBucketing: bucketing, tokens: [])
        }
        try relay.follower.apply(feed("production", revision: 3), body: Data("{}".utf8))
        #expect(relay.follower.revision == 3)
        #expect(relay.readiness.isReady)
        // Another bucketing would answer splits differently; another environment is another relay.
        #expect(throws: RelayFeed.Refusal.self) { try relay.follower.apply(feed("production", revision: 4, bucketing: .legacy), body: Data()) }
        #expect(throws: RelayFeed.Refusal.self) { try relay.follower.apply(feed("staging", revision: 5), body: Data()) }
        #expect(relay.follower.revision == 3)
        #expect(relay.publisher.current.environments.keys.sorted() == ["production"])
        #expect(relay.publisher.current.environments["production"]?.revision == 3)
    }

    @Test
    func theFollowerRefusesWhatItCannotServe() throws {
        #expect(throws: RelayFeed.Refusal.self) {
            try RelayFollower.Options(upstream: try #require(URL(string: "https://user:secret@flags.example.com")), token: "t")
        }
        #expect(throws: RelayFeed.Refusal.self) {
            try RelayFollower.Options(upstream: try #require(URL(string: "ftp://flags.example.com")), token: "t")
        }
        let options = try RelayFollower.Options(upstream: try #require(URL(string: "https://flags.example.com/base/")), token: "ffs_secret")
        #expect(!options.description.contains("ffs_secret"))
        #expect(options.url("/relay/v1/environment") == "https://flags.example.com/base/relay/v1/environment")
        let deep = Data((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8)
        #expect(throws: RelayFeed.Refusal.self) { try RelayFeed.decode(deep) }
        #expect(RelayFeed.nestingExceeding(128, in: Data(#"{"a": "[[[[[[[[[[[[[["}"#.utf8)) == nil)
        var reader = SSELineReader(maximumLine: 8)
        #expect(try reader.append(ByteBuffer(string: "id: 3\r\n\nda")) == ["id: 3", ""])
        #expect(throws: RelayFeed.Refusal.self) { try reader.append(ByteBuffer(string: "ta: 0123456789")) }
    }
}

/// `flag-server relay` run as a process: what it refuses before it starts, without echoing the
/// token.
struct RelayCommandTests {
    @Test(.enabled(if: CommandLineTests.built))
    func theRelayCommandSaysWhatIsMissingOrWrong() throws {
        let missing = try CommandLineTests.run(["relay"])
        #expect(missing.status != 0)
        #expect(missing.output.contains("the relay needs --upstream"), "\(missing.output)")

        let directory = TemporaryDirectory()
        let tokenFile = directory.path + "/token"
        let token = "ffs_0123456789ab_" + String(repeating: "7", count: 64)
        try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let credentials = try CommandLineTests.run(
            ["relay", "--upstream", "https://relay:hunter2@flags.example.com", "--token-file", tokenFile])
        #expect(credentials.status != 0)
        #expect(credentials.output.contains("must not carry credentials"), "\(credentials.output)")
        #expect(!credentials.output.contains(token) && !credentials.output.contains("hunter2"))

        let bucketing = try CommandLineTests.run(
            ["relay", "--upstream", "https://flags.example.com", "--token-file", tokenFile, "--fractional-bucketing", "v9"])
        #expect(bucketing.status != 0)
        #expect(bucketing.output.contains("--fractional-bucketing must be one of"), "\(bucketing.output)")
        #expect(!bucketing.output.contains(token))
    }
}
