import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
import Foundation
import NIOHTTP1
import Testing

/// PostgreSQL restarted under running replicas. The test runs a PostgreSQL of its own (through
/// `FLAG_SERVER_TEST_POSTGRES_CONTROL`, `.ci/postgres.sh`), so that stopping it disturbs no other test.
@Suite(.enabled(
    if: PostgresTestDatabase.control != nil || PostgresTestDatabase.inCI,
    "needs FLAG_SERVER_TEST_POSTGRES_CONTROL (source .ci/postgres.sh; postgres_setup)"))
struct ReplicaRestartTests {
    /// A PostgreSQL in a data directory and on a port of its own.
    struct OwnPostgres {
        let directory = "/tmp/flag-server-restart-test-\(UUID().uuidString.prefix(8))"
        /// Below the ephemeral range, so that a restart gets it back (``LoopbackPort``).
        private(set) var port: Int

        init() throws { port = try LoopbackPort.unusedBelowEphemeralRange() }

        /// Starts the server for the first time; when it does not start (another process took the
        /// port between the check and the start), tries again on another port, and in the end fails
        /// with the server's log.
        mutating func start() async throws {
            var attempt = 1
            while true {
                do {
                    return try await run("start")
                } catch {
                    let log = (try? String(contentsOfFile: directory + "/server.log", encoding: .utf8)) ?? "(no log)"
                    guard attempt < 3 else {
                        throw TestFailure("\(error) on port \(port); its log ends:\n\(log.suffix(2_000))")
                    }
                    attempt += 1
                    port = try LoopbackPort.unusedBelowEphemeralRange()
                }
            }
        }

        /// Runs `.ci/postgres.sh command` on a thread of its own, so that waiting for it blocks no
        /// thread of the concurrency pool that the replicas need meanwhile.
        func run(_ command: String) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                Thread { continuation.resume(with: Result { try runBlocking(command) }) }.start()
            }
        }

        func runBlockingForCleanup(_ command: String) throws { try runBlocking(command) }

        private func runBlocking(_ command: String) throws {
            guard let control = PostgresTestDatabase.control else {
                throw TestFailure("FLAG_SERVER_TEST_POSTGRES_CONTROL is not set: source .ci/postgres.sh and call postgres_setup")
            }
            // posix_spawn and waitpid rather than Process: Foundation's Process did not notice the
            // script's exit here (pg_ctl leaves a daemon behind), and waitUntilExit never returned.
            let arguments = ["/bin/bash", control, command]
            let environment = ProcessInfo.processInfo.environment.merging([
                "FLAG_SERVER_TEST_POSTGRES_DATA": directory, "FLAG_SERVER_TEST_POSTGRES_PORT": String(port),
            ]) { $1 }.map { "\($0)=\($1)" }
            var argv = arguments.map { strdup($0) } + [nil]
            var envp = environment.map { strdup($0) } + [nil]
            defer { for pointer in argv + envp { free(pointer) } }
            var pid: pid_t = 0
            guard posix_spawn(&pid, "/bin/bash", nil, nil, &argv, &envp) == 0 else {
                throw TestFailure("cannot run postgres.sh \(command)")
            }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            guard status == 0 else { throw TestFailure("postgres.sh \(command) failed (status \(status))") }
        }

        var configuration: PostgresConfiguration {
            get throws { try PostgresConfiguration(url: "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable") }
        }
    }

    /// The PostgreSQL that `.ci/postgres.sh start` leaves running must hold none of the caller's
    /// descriptors: one that kept copies of this process's sockets kept connections open after the
    /// tests closed them, and test servers shutting down waited for those forever (the suite hung).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd"), "reads /proc (Linux)"))
    func theStartedPostgresHoldsNoneOfTheCallersSockets() async throws {
        try await TestServer.with { _ in
            var postgres = try OwnPostgres()
            defer {
                try? postgres.runBlockingForCleanup("stop")
                try? FileManager.default.removeItem(atPath: postgres.directory)
            }
            try await postgres.start()
            let ours = Self.sockets(ofProcess: "self")
            #expect(!ours.isEmpty, "the test server's sockets should be open")
            let pid = try String(contentsOfFile: postgres.directory + "/postmaster.pid", encoding: .utf8)
                .split(separator: "\n").first.map(String.init) ?? ""
            let inherited = Self.sockets(ofProcess: pid).intersection(ours)
            #expect(inherited.isEmpty, "PostgreSQL (pid \(pid)) holds \(inherited.count) of the test process's sockets: \(Self.descriptors(ofProcess: pid, holding: inherited)) (ours: \(Self.descriptors(ofProcess: "self", holding: inherited)))")
        }
    }

    /// A process's open descriptors (their numbers) and what each refers to, from `/proc`.
    static func openFiles(ofProcess pid: String) -> [(descriptor: String, file: String)] {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.compactMap { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(entry)")).map { (entry, $0) }
        }
    }

    /// The descriptor numbers under which a process holds `files`.
    static func descriptors(ofProcess pid: String, holding files: Set<String>) -> [String] {
        openFiles(ofProcess: pid).filter { files.contains($0.file) }.map(\.descriptor).sorted()
    }

    /// The sockets a process has open, as `socket:[inode]`.
    static func sockets(ofProcess pid: String) -> Set<String> {
        Set(openFiles(ofProcess: pid).map(\.file).filter { $0.hasPrefix("socket:") })
    }

    @Test
    func replicasServeTheLastStateWhilePostgresIsDownAndRecoverByThemselves() async throws {
        var postgres = try OwnPostgres()
        try await postgres.start()
        defer {
            try? postgres.runBlockingForCleanup("stop")
            try? FileManager.default.removeItem(atPath: postgres.directory)
        }
        // The periodic revision check runs (often, to keep the test short): it is what notices an
        // outage, and the return, on a replica whose notification connection hangs instead of failing
        // (seen under load: the LISTEN stream of one replica neither ended nor threw when PostgreSQL
        // stopped).
        try await ReplicaTestCluster.with(
            replicas: 2, configuration: try postgres.configuration, revisionCheck: .every(.milliseconds(250))
        ) { cluster in
            let (a, b) = (cluster.replicas[0], cluster.replicas[1])
            let token = try await a.token(.client, environment: "production")
            await b.server.synchronizer?.checkNow()
            var onB = EventStreamReader(try await b.openStream(token: token))
            try await a.booleanFlag("checkout")
            var last: EventStreamReader.Event?
            while last?.id != "3" { last = try await onB.nextEvent() }

            try await postgres.run("stop")
            await a.server.readiness.wait(untilReady: false)
            await b.server.readiness.wait(untilReady: false)
            let notReady = try await b.request(.GET, "/health/ready")
            #expect(notReady.status == 503)
            #expect(notReady.json?["problem"]?.stringValue?.hasPrefix("the database is unreachable") == true)
            #expect(try await b.request(.GET, "/health/live").status == 200)
            let served = try await b.request(.POST, "/ofrep/v1/evaluate/flags", token: token, body: #"{"context": {}}"#)
            #expect(served.status == 200)
            #expect(served.json?["flags"]?.arrayValue?.first?["value"] == true)

            try await postgres.run("start")
            await a.server.readiness.wait(untilReady: true)
            await b.server.readiness.wait(untilReady: true)
            #expect(try await b.request(.GET, "/health/ready").status == 200)

            // Writes work again and still reach B's open stream; no committed revision was lost.
            let off = try await a.request(
                .PUT, "/admin/v1/environments/production/flags/checkout/settings", token: cluster.adminToken,
                body: #"{"enabled": false, "defaultVariant": "off"}"#)
            #expect(off.status == 200)
            #expect(try await onB.nextEvent()?.id == "4")
            let history = try await cluster.stores[1].revisions(environment: "production", limit: 10)
            #expect(history.map(\.revision) == [4, 3, 2, 1])
        }
    }
}
