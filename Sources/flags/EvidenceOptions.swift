import ArgumentParser
import FlagServerClient
import FlagTooling
import Foundation

/// Where `flags lint`, `refs` and `remove` read a server's removal evidence: `--server URL` (the
/// admin token from the environment variable `--token-env` names) and `--environment`, or a saved
/// answer with `--evidence FILE`. Neither: no evidence.
struct EvidenceOptions: ParsableArguments {
    @Option(name: .long, help: "A flag server's root URL: read its removal evidence (unused and settled flags).")
    var server: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --server: the environment variable holding the admin token (the token is never an argument, so it stays out of the process list).",
            valueName: "variable"))
    var tokenEnv: String = ServerOptions.tokenVariable

    @Option(name: .long, help: "With --server or --evidence: the environment whose evidence is read.")
    var environment: String = "production"

    @Option(name: .long, help: "With --server: how many days of events the evidence covers.")
    var evidenceDays: Int = 30

    @Option(name: .long, help: "Instead of --server: a saved answer of GET /admin/v1/environments/{environment}/evidence.")
    var evidence: String?

    @Option(name: .long, help: "With --server: seconds to wait for the server's whole answer.")
    var timeout: Double = 30

    func validate() throws {
        guard server == nil || evidence == nil else {
            throw ValidationError("Give the evidence with either --server or --evidence, not both.")
        }
        guard (1...365).contains(evidenceDays) else { throw ValidationError("--evidence-days must be between 1 and 365.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
    }

    /// The evidence asked for, or `nil` when neither --server nor --evidence was given.
    func load() throws(ToolingError) -> ServerEvidence? {
        if let evidence {
            let loaded = try ServerEvidence.load(path: evidence)
            guard loaded.environment == environment else {
                throw ToolingError(
                    .invalidInput,
                    "\(evidence) holds the evidence of environment \"\(loaded.environment)\", not \"\(environment)\"; pass --environment \(loaded.environment).")
            }
            return loaded
        }
        guard let server else { return nil }
        let token = ProcessInfo.processInfo.environment[tokenEnv] ?? ""
        guard !token.isEmpty else {
            throw ToolingError(.invalidInput, "No token: set the environment variable \(tokenEnv) to an admin token of \"\(environment)\".")
        }
        var client = try FlagServerClient(server: server, token: token, transport: URLSessionFlagServerTransport(timeout: timeout))
        client.tokenSource = "the environment variable \(tokenEnv)"
        if client.sendsTokenInClear {
            Output.warning("\(server) is plain http to another machine: the token travels unencrypted. Use https.")
        }
        let answer = try client.evidence(environment: environment, days: evidenceDays)
        if !answer.eventsEnabled { Output.warning("\(server) keeps no events: it has no evidence of unused or settled flags.") }
        return answer
    }
}
