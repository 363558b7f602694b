import FlagEvaluation
@testable import FlagServer
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import Testing

/// Tokens never appear in logs, descriptions or listings.
struct SecretRedactionTests {
    final class RecordedLines: Sendable {
        let lines = Mutex<[String]>([])
        var text: String { lines.withLock { $0.joined(separator: "\n") } }
    }

    struct RecordingHandler: LogHandler {
        let recorded: RecordedLines
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorded.lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
        }
    }

    @Test
    func tokensNeverReachTheLogs() async throws {
        let recorded = RecordedLines()
        let logger = Logger(label: "test") { _ in RecordingHandler(recorded: recorded) }
        let store = try await SQLiteFlagStore(path: nil)
        let (server, bootstrap) = try await FlagServer.start(store: store, configuration: .init(limits: .forTests), logger: logger)
        let admin = try #require(bootstrap?.adminToken)
        let (client, record) = try await server.admin.createToken(name: "web", environment: "production", role: .client)
        try await server.admin.revokeToken(id: record.id)
        #expect(!recorded.text.isEmpty)
        #expect(!recorded.text.contains(admin))
        #expect(!recorded.text.contains(client))
        #expect(!recorded.text.contains(record.digest))
        #expect(String(describing: record).contains("digest: <REDACTED>"))
        await store.close()
    }
}
