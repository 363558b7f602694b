import ArgumentParser
import FlagServer
import Foundation

/// `flag-server add-user`: creates a console user in the data directory and prints its
/// generated password once.
struct AddUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Create a web console user (viewer, editor or admin) and print its generated password once."
    )

    @Option(help: "The sign-in name: letters, digits, '.', '_' or '-'.") var name: String
    @Option(help: "viewer (sees everything, changes nothing), editor (changes flags) or admin.") var role: String
    @Option(help: "Directory of the SQLite database (FLAG_SERVER_DATA_DIRECTORY, default ./flag-server-data).")
    var dataDirectory: String?

    func run() async throws {
        guard let role = ConsoleRole(rawValue: role) else {
            throw ArgumentParser.ValidationError("--role \(role): must be one of \(ConsoleRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(dataDirectory: dataDirectory, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ArgumentParser.ValidationError(error.description)
        }
        let store = try await SQLiteFlagStore(path: configuration.databasePath)
        do {
            try await store.migrate()
            let password = ConsoleAccounts.generatedPassword()
            try await ConsoleAccounts(store: store).createUser(name: name, password: password, role: role)
            print("Created the console user \"\(name)\" (role \(role.rawValue)). Its password (shown only this once):\n\n    \(password)\n")
        } catch {
            await store.close()
            throw ArgumentParser.ValidationError("\(error)")
        }
        await store.close()
    }
}
