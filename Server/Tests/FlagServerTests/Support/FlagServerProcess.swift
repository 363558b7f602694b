import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// A running `flag-server` process (`serve` on a free port), with an HTTP client of its own. What
/// the process writes is read on a thread of its own, so that it never blocks on a full pipe, and
/// kept, so that a test can search it.
final class FlagServerProcess: Sendable {
    /// The process.
    let process: Process
    /// The port it listens on.
    let port: Int
    /// The first admin token, if this start printed one (the first start on a database does).
    let firstToken: String?
    /// A client of its own, shut down by `kill()` and `stop()`, so that requests still queued for
    /// a killed process fail at once instead of waiting for a connection.
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    private let written: Mutex<String>

    /// Starts the built `flag-server` with `arguments` and waits until it listens.
    init(_ arguments: [String]) async throws {
        let (process, output) = try startFlagServerProcess(arguments)
        let text = try await outputUntilListening(output)
        (port, firstToken) = try listeningPortAndToken(in: text)
        self.process = process
        written = Mutex(text)
        let handle = output.fileHandleForReading
        Thread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                written.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }

    /// `flag-server serve` on a free port over the SQLite database in `dataDirectory`, logging at
    /// info, with `arguments` added.
    convenience init(dataDirectory: String, _ arguments: [String] = []) async throws {
        try await self.init(["serve", "--port", "0", "--data-directory", dataDirectory, "--log-level", "info"] + arguments)
    }

    /// `flag-server serve` on a free port over the PostgreSQL at `databaseURL`, logging at info,
    /// with `arguments` added.
    convenience init(databaseURL: String, _ arguments: [String] = []) async throws {
        try await self.init(["serve", "--port", "0", "--database-url", databaseURL, "--log-level", "info"] + arguments)
    }

    /// What the process wrote so far.
    var output: String { written.withLock { $0 } }

    /// Sends a request with `token` as its bearer token: the status and the body.
    func request(_ method: HTTPMethod, _ path: String, token: String, body: String? = nil) async throws -> (Int, String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, deadline: .distantFuture)
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), String(buffer: bytes))
    }

    /// Opens the OFREP event stream with `token`.
    func eventStream(token: String) async throws -> EventStreamReader {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/ofrep/v1/events")
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, deadline: .distantFuture)
        guard response.status == .ok else { throw TestFailure("the event stream answered \(response.status)") }
        return EventStreamReader(response)
    }

    /// Waits until the output contains `text`: `false` if the process ended first or after
    /// `polls` looks 100 ms apart (a bound that only keeps a broken build from hanging the suite).
    func waitForOutput(_ text: String, polls: Int = 600) async throws -> Bool {
        for _ in 0..<polls {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// Kills the process with SIGKILL, waits for it to end, and shuts the client down.
    func kill() async {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? await client.shutdown()
    }

    /// Ends the process with SIGTERM, waits for it to end, and shuts the client down.
    func stop() async {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        try? await client.shutdown()
    }
}
