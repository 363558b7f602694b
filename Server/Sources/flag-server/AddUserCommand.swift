import ArgumentParser
import FlagServer
import Foundation

/// `flag-server add-user`: creates a console user and prints its generated password once.
struct AddUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-user",
        abstract: "Create a web console user (viewer, editor or admin) and print its generated password once."
    )

    @Option(help: "The sign-in name: letters, digits, '.', '_' or '-'.") var name: String
    @Option(help: "viewer (sees everything, changes nothing), editor (changes flags) or admin.") var role: ConsoleRole
    @OptionGroup var store: StoreOptions

    func run() async throws {
        let password = ConsoleAccounts.generatedPassword()
        try await store.withStore { store in
            try await ConsoleAccounts(store: store).createUser(name: name, password: password, role: role)
        }
        print("Created the console user \"\(name)\" (role \(role.rawValue)). Its password (shown only this once):\n\n    \(password)\n")
    }
}

/// `flag-server reset-password`: gives a console user a new generated password, printed once,
/// and ends the user's sessions.
struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Give a web console user a new generated password (printed once) and sign the user out."
    )

    @Option(help: "The user's sign-in name.") var name: String
    @OptionGroup var store: StoreOptions

    func run() async throws {
        let password = try await store.withStore { store in
            try await ConsoleAccounts(store: store).resetPassword(of: name, actor: ConsoleAccounts.commandLineActor)
        }
        print("New password of the console user \"\(name)\" (shown only this once):\n\n    \(password)\n")
    }
}

/// `flag-server set-user`: changes a console user's role, or disables or enables the user.
struct SetUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-user",
        abstract: "Change a web console user's role, or disable or enable the user."
    )

    @Option(help: "The user's sign-in name.") var name: String
    @Option(help: "The new role: viewer, editor or admin.") var role: ConsoleRole?
    @Flag(inversion: .prefixedEnableDisable, help: "Enable or disable the user (a disabled user is signed out and cannot sign in).")
    var user: Bool?
    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard role != nil || user != nil else { throw ValidationError("give --role, --enable-user or --disable-user") }
    }

    func run() async throws {
        let updated = try await store.withStore { store in
            try await ConsoleAccounts(store: store).updateUser(
                name, role: role, disabled: user.map { !$0 }, actor: ConsoleAccounts.commandLineActor)
        }
        print("The console user \"\(updated.name)\": role \(updated.role.rawValue), \(updated.disabledAt == nil ? "active" : "disabled").")
    }
}
