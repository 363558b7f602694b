import ArgumentParser
import FeatureFlags
import FlagManifest
import FlagServerClient
import FlagTooling
import Foundation

/// `--server`, `--token` (or `FLAGS_SERVER_TOKEN`), `--max-response-bytes`, `--timeout`.
struct ServerOptions: ParsableArguments {
    static let tokenVariable = "FLAGS_SERVER_TOKEN"

    @Option(name: .long, help: "The flag server's root URL, such as https://flags.example.com.")
    var server: String

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The admin token (default: the FLAGS_SERVER_TOKEN environment variable, which keeps it out of the process list).",
            valueName: "token"))
    var token: String?

    @Option(name: .long, help: "The largest server answer read, in bytes.")
    var maxResponseBytes: Int = FlagServerClient.defaultMaximumResponseBytes

    @Option(name: .long, help: "Seconds to wait for the server's whole answer.")
    var timeout: Double = 30

    func validate() throws {
        guard maxResponseBytes > 0 else { throw ValidationError("--max-response-bytes must be a positive number of bytes.") }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
    }

    func client() throws(ToolingError) -> FlagServerClient {
        let token = self.token ?? ProcessInfo.processInfo.environment[Self.tokenVariable] ?? ""
        let client = try FlagServerClient(
            server: server, token: token, transport: URLSessionFlagServerTransport(timeout: timeout),
            maximumResponseBytes: maxResponseBytes)
        if client.sendsTokenInClear {
            Output.warning("\(server) is plain http to another machine: the token travels unencrypted. Use https.")
        }
        return client
    }
}

/// The app's manifest: `--manifest FILE`, or `--sources …` read as `flags export` reads them.
struct AppManifestOptions: ParsableArguments {
    @Option(name: .long, help: "The app's flag manifest (a flagd flag-definition JSON file).")
    var manifest: String?

    @Option(
        name: .long, parsing: .upToNextOption,
        help: "Instead of --manifest: Swift files or folders declaring the flag enum, read as `flags export` reads them.")
    var sources: [String] = []

    @Option(name: .long, help: "With --sources: the flag enum, when the sources declare more than one.")
    var enumName: String?

    func validate() throws {
        guard (manifest == nil) != sources.isEmpty else {
            throw ValidationError("Give the app's flags with either --manifest FILE or --sources PATH…, not both or neither.")
        }
    }

    /// The manifest, checked as a registry.
    func load() throws -> Manifest {
        if let manifest { return try Manifest.load(path: manifest).0 }
        var files: [(path: String, text: String)] = []
        for path in try SwiftSourceFiles.find(in: sources) {
            files.append((path, try SwiftSourceFiles.read(path)))
        }
        let manifest = try SwiftRegistryReader().read(sources: files, enumName: enumName, flagSetID: nil)
        do {
            _ = try manifest.registry()
        } catch {
            throw ToolingError(.invalidInput, "The declarations are inconsistent: \(error.description)")
        }
        return manifest
    }
}
