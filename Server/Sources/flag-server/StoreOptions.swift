import ArgumentParser
import FlagServer
import Foundation
import Logging

/// Where a command finds the server's database: the options `serve` takes, so that every
/// command works on SQLite and PostgreSQL alike.
struct StoreOptions: ParsableArguments {
    @Option(help: "Directory of the SQLite database (FLAG_SERVER_DATA_DIRECTORY, default ./flag-server-data).")
    var dataDirectory: String?
    @Option(help: "PostgreSQL URL, postgres://user:password@host:5432/database (FLAG_SERVER_DATABASE_URL); replaces SQLite.")
    var databaseURL: String?

    /// Opens and migrates the store, runs `body` on it, and closes it.
    @discardableResult
    func withStore<T>(_ body: (any FlagStore & ConsoleAccountStore) async throws -> T) async throws -> T {
        let configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration(
                dataDirectory: dataDirectory, databaseURL: databaseURL, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        // Only warnings and errors: the command's own output is what it prints.
        var logger = Logger(label: "flag-server")
        logger.logLevel = .warning
        let store: any FlagStore & ConsoleAccountStore
        if let postgres = configuration.postgres {
            store = PostgresFlagStore(configuration: postgres, logger: logger)
        } else {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            store = try await SQLiteFlagStore(path: configuration.databasePath, logger: logger)
        }
        do {
            try await store.migrate()
            let result = try await body(store)
            await store.close()
            return result
        } catch let error as AdminError {
            await store.close()
            throw ValidationError(error.description)
        } catch let error as StoreError {
            await store.close()
            throw ValidationError(error.description)
        } catch {
            await store.close()
            throw error
        }
    }
}

extension ConsoleRole: ExpressibleByArgument {}
extension TokenRole: ExpressibleByArgument {}
