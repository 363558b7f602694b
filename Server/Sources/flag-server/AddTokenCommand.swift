import ArgumentParser
import FlagServer
import Foundation

/// `flag-server add-token`: mints a token straight in the database (no running server and no
/// other token needed) and prints it once; only its SHA-256 digest is stored.
struct AddTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-token",
        abstract: "Create an API token in the database (e.g. a new admin token) and print it once.",
        discussion: """
            Needs access to the database, not to a running server: the way back in when the first \
            admin token is lost. Running servers pick the token up within their revision check \
            (PostgreSQL: at once, by notification; SQLite: within a second).
            """
    )

    @Option(help: "client (delivery), server (also the flagd file) or admin (also the admin API).") var role: TokenRole = .admin
    @Option(help: "The environment, or * for every environment (admin tokens only).") var environment: String = "*"
    @Option(help: "A name that tells the token apart (shown in lists and the audit).") var name: String = "command-line-admin"
    @OptionGroup var store: StoreOptions

    func run() async throws {
        guard !name.isEmpty, name.utf8.count <= 128 else { throw ValidationError("--name: 1–128 bytes") }
        let (token, record) = try await store.withStore { store in
            try FlagAdmin.checkToken(environment: environment, role: role, in: try await store.load())
            let (token, record) = TokenIssuer.issue(name: name, environment: environment, role: role, at: Date())
            try await store.insertToken(record)
            return (token, record)
        }
        print("""
            Created the \(record.role.rawValue) token "\(record.name)" (id \(record.id)) for \(record.environment).
            The token (shown only this once; only its hash is stored):

                \(token)

            """)
    }
}
