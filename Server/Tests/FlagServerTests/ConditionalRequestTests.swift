import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// `If-None-Match` uses the weak comparison on every route with an ETag, and the bulk ETag is
/// keyed on the context's canonical form.
struct ConditionalRequestTests {
    @Test
    func weakTagsAnswer304OnEveryRouteWithAnETag() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.server, environment: "production")
            let body = #"{"context": {"targetingKey": "u1"}}"#
            let bulk = try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: body)
            let appConfig = try await server.request(.GET, "/rpc/app_config", token: token)
            let flagd = try await server.request(.GET, "/flagd/v1/flags.json", token: token)
            for (reply, method, path) in [
                (bulk, HTTPMethod.POST, "/ofrep/v1/evaluate/flags"), (appConfig, .GET, "/rpc/app_config"),
                (flagd, .GET, "/flagd/v1/flags.json"),
            ] {
                let etag = try #require(reply.header("ETag"))
                for match in ["W/" + etag, #""other", W/\#(etag)"#, "*"] {
                    let cached = try await server.request(
                        method, path, token: token, body: method == .POST ? body : nil, headers: [("If-None-Match", match)])
                    #expect(cached.status == 304, "\(path) \(match)")
                    #expect(cached.header("ETag") == etag)
                }
                let other = try await server.request(
                    method, path, token: token, body: method == .POST ? body : nil, headers: [("If-None-Match", #"W/"other""#)])
                #expect(other.status == 200, "\(path)")
            }
        }
    }

    @Test
    func theSameContextWrittenOtherwiseAnswers304() async throws {
        try await TestServer.with { server in
            try await server.booleanFlag("checkout")
            let token = try await server.token(.client, environment: "production")
            let first = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {"targetingKey": "u1", "age": 36}}"#)
            let etag = try #require(first.header("ETag"))
            let respelled = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: "{ \"context\" : {\n \"age\": 36.0, \"targetingKey\": \"u1\" } }",
                headers: [("If-None-Match", etag)])
            #expect(respelled.status == 304)
            let changed = try await server.request(
                .POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {"targetingKey": "u1", "age": 37}}"#,
                headers: [("If-None-Match", etag)])
            #expect(changed.status == 200)
            // No body is the empty context, as `{}` and `{"context": {}}` are.
            let empty = try #require(try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token).header("ETag"))
            #expect(try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: "{}").header("ETag") == empty)
            #expect(try await server.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
                .header("ETag") == empty)
        }
    }
}
