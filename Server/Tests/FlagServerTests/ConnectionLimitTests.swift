@testable import FlagServer
import Foundation
import Testing

/// The server refuses connections past its cap cleanly (503, then closed), keeps serving those it
/// has, and never uses its last descriptors: a process out of descriptors crashes in libdispatch.
struct ConnectionLimitTests {
    @Test
    func theConnectionCapKeepsDescriptorsFreeBelowTheLimit() {
        var limits = ServerLimits()
        #expect(limits.maximumConnections == 100_000)
        #expect(limits.listenBacklog == 4096)
        #expect(limits.connectionCap(descriptorLimit: DescriptorLimit(soft: 20_000, hard: 20_000)) == 19_744)
        #expect(limits.connectionCap(descriptorLimit: DescriptorLimit(soft: 200, hard: 1_000)) == 150)
        #expect(limits.connectionCap(descriptorLimit: DescriptorLimit(soft: 1_048_576, hard: 1_048_576)) == 100_000)
        #expect(limits.connectionCap(descriptorLimit: nil) == 100_000)
        limits.maximumConnections = 10
        #expect(limits.connectionCap(descriptorLimit: DescriptorLimit(soft: 20_000, hard: 20_000)) == 10)
    }

    @Test
    func theBacklogAndTheDescriptorLimitAreConfigurable() throws {
        let defaults = try ServerConfiguration(environment: [:])
        #expect(defaults.limits.listenBacklog == 4096)
        #expect(defaults.descriptorLimit == nil)
        let environment = ["FLAG_SERVER_LISTEN_BACKLOG": "512", "FLAG_SERVER_DESCRIPTOR_LIMIT": "4000"]
        let fromEnvironment = try ServerConfiguration(environment: environment)
        #expect(fromEnvironment.limits.listenBacklog == 512)
        #expect(fromEnvironment.descriptorLimit == 4000)
        let fromOptions = try ServerConfiguration(listenBacklog: 64, descriptorLimit: 0, environment: environment)
        #expect(fromOptions.limits.listenBacklog == 64)
        #expect(fromOptions.descriptorLimit == nil)
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(listenBacklog: 0, environment: [:]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["FLAG_SERVER_DESCRIPTOR_LIMIT": "many"]) }
    }

    @Test
    func raisingTheDescriptorLimitNeverExceedsTheHardLimit() throws {
        let current = try #require(DescriptorLimit.current())
        // Asking for more than the hard limit sets the hard limit (what it is already, for
        // `flag-server serve` raised it at start; the test process may have it raised too).
        let raised = try #require(DescriptorLimit.raise(to: current.hard == Int.max ? nil : current.hard + 1))
        #expect(raised.soft <= raised.hard)
        #expect(raised.hard == current.hard)
        #expect(DescriptorLimit.current() == raised)
    }

    @Test
    func aConnectionPastTheCapIsAnswered503AndTheOpenStreamsAreStillServed() async throws {
        var limits = ServerLimits.forTests
        limits.maximumConnections = 2
        try await TestServer.with(limits: limits) { server in
            // Made in process: a request would leave a pooled connection open, counted in the cap.
            let (token, _) = try await server.server.admin.createToken(name: "streams", environment: "production", role: .client)
            let port = server.port
            let request = "GET /ofrep/v1/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n\r\n"
            let streams = try await RawConnection.offPool {
                try (0..<2).map { _ in
                    let connection = try RawConnection(port: port)
                    try connection.send(request)
                    _ = connection.read(until: "retry: 2000\n\n")
                    return connection
                }
            }
            let refused = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                return connection.read(until: "\u{0}")  // everything, until the server closes
            }
            #expect(refused?.hasPrefix("HTTP/1.1 503") == true, "\(refused ?? "nothing")")
            #expect(refused?.contains("retry-after: 5") == true || refused?.contains("Retry-After: 5") == true)
            #expect(refused?.contains("\"unavailable\"") == true)
            // The two streams still get events.
            server.server.events.publish(environment: "production", revision: 1_000)
            let received = try await RawConnection.offPool { streams.map { $0.read(until: "\n\n") ?? "" } }
            for event in received { #expect(event.contains("id: 1000")) }
            for stream in streams { stream.disconnect() }
        }
    }

    /// A server under a descriptor limit of 160 (`prlimit`) asked for 200 event streams: it holds
    /// what its cap allows with descriptors to spare, answers the rest 503, and still delivers
    /// changes to the streams it holds. Before the cap kept descriptors free, the server accepted
    /// connections until `accept` failed, and libdispatch then trapped (SIGILL) when it could not
    /// open `/proc/<tid>/stat`.
    @Test(.enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")
            && FileManager.default.isExecutableFile(atPath: CrashRecoveryTests.executable.path),
        "Linux: the limit is set for the child process with util-linux's prlimit"))
    func underALowDescriptorLimitTheServerRefusesCleanlyAndKeepsServing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("descriptor-limit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let limit = 160
        let (process, port, adminToken, output) = try await launchFlagServer([
            "--nofile=\(limit):\(limit)", CrashRecoveryTests.executable.path,
            "serve", "--port", "0", "--data-directory", directory.path, "--rate-limit-per-second", "0",
            "--maximum-event-streams-per-token", "1000",
        ], executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
        defer { process.terminate() }
        let drain = Thread { _ = output.fileHandleForReading.readDataToEndOfFile() }
        drain.start()
        let admin = try #require(adminToken)
        let client = try await RawConnection.offPool {
            let reply = try Self.exchange(
                port: port, "POST", "/admin/v1/tokens", token: admin,
                body: #"{"name":"streams","environment":"production","role":"client"}"#)
            return reply.split(separator: "\"token\":\"").dropFirst().first.map { String($0.prefix { $0 != "\"" }) } ?? ""
        }
        #expect(client.hasPrefix("ffs_"))
        let request = "GET /ofrep/v1/events HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(client)\r\n\r\n"
        let (streams, others) = try await RawConnection.offPool {
            var streams: [RawConnection] = []
            var others: [String] = []
            for _ in 0..<200 {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                let head = connection.read(until: "\r\n\r\n") ?? ""
                if head.hasPrefix("HTTP/1.1 200") { streams.append(connection) } else { others.append(head) }
            }
            return (streams, others)
        }
        let refusals = others.filter { $0.hasPrefix("HTTP/1.1 503") }.count
        let cap = ServerLimits().connectionCap(descriptorLimit: DescriptorLimit(soft: limit, hard: limit))
        #expect(streams.count <= cap)
        #expect(streams.count >= cap - 2)  // the token request's connection may still be counted
        #expect(refusals == 200 - streams.count, "\(others.filter { !$0.hasPrefix("HTTP/1.1 503") }.prefix(3))")
        #expect(process.isRunning)
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count
        #expect(open < limit, "\(open) descriptors open of \(limit)")
        // Free a few connections, then write: the open streams get the change.
        for stream in streams.prefix(4) { stream.disconnect() }
        let kept = Array(streams.dropFirst(4))
        let written = try await RawConnection.offPool {
            // The freed connections are counted out when the server sees them close: retry the
            // write (each try a new connection) until it is not refused.
            for _ in 0..<10_000 {
                let reply = try Self.exchange(
                    port: port, "PUT", "/admin/v1/flags/limit-check", token: admin,
                    body: #"{"type":"boolean","variants":{"on":true,"off":false},"defaultVariant":"off"}"#)
                if !reply.hasPrefix("HTTP/1.1 503") { return reply }
            }
            return "refused every time"
        }
        #expect(written.hasPrefix("HTTP/1.1 200"), "\(written.prefix(300))")
        let events = try await RawConnection.offPool { kept.map { $0.read(until: "refetchEvaluation") ?? "" } }
        #expect(events.allSatisfy { $0.contains("id: ") }, "\(events.filter { !$0.contains("id: ") }.prefix(3))")
        #expect(process.isRunning)
    }

    /// One request on a new connection, answered with `Connection: close`: the whole reply.
    static func exchange(port: Int, _ method: String, _ path: String, token: String, body: String) throws -> String {
        let connection = try RawConnection(port: port)
        try connection.send(
            "\(method) \(path) HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
        return connection.read(until: "\u{0}") ?? ""
    }
}
