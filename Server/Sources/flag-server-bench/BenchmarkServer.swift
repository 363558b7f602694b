import FlagEvaluation
import FlagServer
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The flag server in a benchmark-only configuration, for `scripts/bench/bench_http.sh` (wrk):
///
/// - a SQLite store in a new temporary directory (as `flag-server serve` keeps one in its data
///   directory) with `--flags N` flags in `production` (one of them, `checkout`, targeted
///   with a rule and a fractional split), a client token, and no rate limit;
/// - beside the real routes, `POST /bench/fixed-single` and `POST /bench/fixed-bulk`, which answer
///   bytes encoded once at start (the same bytes the real routes answer for the benchmark's
///   context): the stack's own limit, measured in the same run.
///
/// It prints one JSON line (`port`, `token`, `flags`) when it listens. Never a production
/// configuration: the `flag-server` executable has no such routes.
///
///     swift run -c release flag-server-bench --flags 1000
///
/// `--events` runs the event stores' ingest benchmark instead (``EventIngestBenchmark``);
/// `--experiments` their experiment results (``ExperimentResultsBenchmark``).
@main
struct BenchmarkServer {
    static func main() async throws {
        if CommandLine.arguments.dropFirst().first == "--events" {
            try await EventIngestBenchmark.run(CommandLine.arguments.dropFirst(2))
            return
        }
        if CommandLine.arguments.dropFirst().first == "--experiments" {
            try await ExperimentResultsBenchmark.run(CommandLine.arguments.dropFirst(2))
            return
        }
        let (flagCount, unlimitedSignIns) = Self.arguments(CommandLine.arguments.dropFirst())
        var logger = Logger(label: "flag-server-bench")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flag-server-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteFlagStore(path: directory.appendingPathComponent("flags.sqlite").path, logger: logger)
        var consoleOptions = ConsoleOptions()
        if unlimitedSignIns {
            // Every sign-in reaches bcrypt: the password pool is the only bound left.
            consoleOptions.signInsPerSecond = 1_000_000
            consoleOptions.signInBurst = 1_000_000
            consoleOptions.signInsPerAccountPerMinute = 1_000_000
            consoleOptions.signInsPerAddressPerMinute = 1_000_000
        }
        let (server, _) = try await FlagServer.start(
            store: store, configuration: FlagServer.Configuration(rateLimiter: nil, console: consoleOptions), logger: logger)
        try await server.admin.write(actor: "flag-server-bench", reason: "benchmark flags") { _ in
            Self.changes(flagCount: flagCount)
        }
        let (token, _) = try await server.admin.createToken(name: "bench", environment: "production", role: .client)

        guard let environment = server.publisher.current.environments["production"] else {
            fatalError("the production environment was not created")
        }
        let now = Date()
        let singleBuffer = OFREPBodies.single("checkout", context: Self.context, in: environment, now: now)?.body ?? ByteBuffer()
        let bulkBuffer = OFREPBodies.bulk(context: Self.context, in: environment, now: now)

        let router = server.router()
        router.post("/bench/fixed-single") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: singleBuffer))
        }
        router.post("/bench/fixed-bulk") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: bulkBuffer))
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "flag-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let line = #"{"port": \#(port), "token": "\#(token)", "flags": \#(flagCount)}"# + "\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger
        )
        try await app.runService()
        await store.close()
    }

    /// `--flags N` (at least 1; default 1000) and `--unlimited-sign-ins` (console sign-ins limited
    /// by the password pool only, for `scripts/bench/bench_signin.sh`); anything else prints the usage
    /// and exits.
    static func arguments(_ arguments: ArraySlice<String>) -> (flags: Int, unlimitedSignIns: Bool) {
        var arguments = arguments
        var count = 1000
        var unlimitedSignIns = false
        while let argument = arguments.popFirst() {
            if argument == "--unlimited-sign-ins" {
                unlimitedSignIns = true
                continue
            }
            guard argument == "--flags", let value = arguments.popFirst().flatMap(Int.init), value >= 1 else {
                FileHandle.standardError.write(Data("usage: flag-server-bench [--flags N (at least 1)] [--unlimited-sign-ins]\n".utf8))
                exit(2)
            }
            count = value
        }
        return (count, unlimitedSignIns)
    }

    /// The context every benchmark request sends (`scripts/bench/bench_http.sh` sends the same JSON).
    static let context: JSONValue = ["targetingKey": "user-42", "email": "ann@example.com", "plan": "premium"]

    /// `count` flags, on in `production`: `checkout` targeted (a rule, then a 50/50 split), the
    /// others a mix of Boolean, string and integer flags.
    static func changes(flagCount count: Int) -> [StateChange] {
        var changes: [StateChange] = []
        let rule: JSONValue = [
            "if": [
                ["ends_with": [["var": "email"], "@example.org"]], "on",
                ["fractional": [["var": "targetingKey"], ["on", 50], ["off", 50]]],
            ]
        ]
        let checkout = FlagRecord(key: "checkout", type: .boolean, variants: ["on": true, "off": false])
        changes.append(.putFlag(checkout, initialSettings: FlagSettings(enabled: false, defaultVariant: "off")))
        changes.append(.putSettings(
            environment: "production", flag: "checkout", FlagSettings(enabled: true, defaultVariant: "off", targeting: rule)))
        for index in 1..<count {
            let key = String(format: "flag-%05d", index)
            let flag: FlagRecord = switch index % 3 {
            case 0: FlagRecord(key: key, type: .boolean, variants: ["on": true, "off": false])
            case 1: FlagRecord(key: key, type: .string, variants: ["a": "variant a", "b": "variant b"])
            default: FlagRecord(key: key, type: .integer, variants: ["small": 10, "large": 1000])
            }
            let variant = flag.variants.keys.sorted().first
            changes.append(.putFlag(flag, initialSettings: FlagSettings(enabled: false, defaultVariant: variant)))
            changes.append(.putSettings(environment: "production", flag: key, FlagSettings(enabled: true, defaultVariant: variant)))
        }
        return changes
    }
}
