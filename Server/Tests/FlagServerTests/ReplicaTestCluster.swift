import AsyncHTTPClient
import FlagEvaluation
@testable import FlagServer
import Foundation
import Logging
import ServiceLifecycle

/// Several in-process servers (replicas), each with its own PostgreSQL store over one schema, on
/// loopback ports. The periodic revision check runs only when a test calls `checkNow()`.
struct ReplicaTestCluster {
    let replicas: [TestServer]
    let stores: [PostgresFlagStore]
    let schema: String

    var adminToken: String { replicas[0].adminToken }

    /// The heartbeat of replicas in tests that do not test the heartbeat itself: the default's
    /// 1.2 s is missed now and then when CI runs hundreds of tests at once on two cores (CI's
    /// server step once found a replica "not ready: no heartbeat came back within 1.2 seconds"
    /// while a test read its readiness). Tests of the heartbeat pass a heartbeat of their own.
    static let loadedMachineHeartbeat = ReplicaSynchronizer.Heartbeat(interval: .milliseconds(500), timeout: .seconds(10))

    static func with<T: Sendable>(
        replicas count: Int, schema: String = PostgresTestDatabase.freshSchema(),
        configuration: PostgresConfiguration? = nil, reconnectDelay: Duration = .milliseconds(100),
        revisionCheck: ReplicaSynchronizer.Schedule = .manual,
        heartbeat: ReplicaSynchronizer.Heartbeat? = ReplicaTestCluster.loadedMachineHeartbeat,
        _ body: (ReplicaTestCluster) async throws -> T
    ) async throws -> T {
        var configuration = try configuration ?? PostgresTestDatabase.configuration(schema: schema)
        configuration.schema = schema
        var servers: [(FlagServer, String?)] = []
        var stores: [PostgresFlagStore] = []
        for index in 0..<count {
            let store = PostgresFlagStore(configuration: configuration, logger: Logger(label: "replica-\(index)"), tokenWriteTimeout: ServerLimits.forTests.writeTimeout)
            stores.append(store)
            let (server, bootstrap) = try await FlagServer.start(
                store: store,
                configuration: FlagServer.Configuration(
                    limits: .forTests, rateLimiter: nil, revisionCheck: revisionCheck, reconnectDelay: reconnectDelay, heartbeat: heartbeat),
                logger: Logger(label: "replica-\(index)"))
            servers.append((server, bootstrap?.adminToken))
        }
        let adminToken = servers.compactMap(\.1).first ?? ""
        let (ports, portContinuation) = AsyncStream.makeStream(of: (Int, Int).self)
        let apps = servers.enumerated().map { index, server in
            server.0.application(host: "127.0.0.1", port: 0) { port in portContinuation.yield((index, port)) }
        }
        let group = ServiceGroup(configuration: .init(services: apps.map { $0 as any Service }, logger: Logger(label: "test")))
        let opened = stores
        let closeAll = { for store in opened { await store.close() } }
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var portsByIndex: [Int: Int] = [:]
            for await (index, port) in ports {
                portsByIndex[index] = port
                if portsByIndex.count == count { break }
            }
            let cluster = ReplicaTestCluster(
                replicas: servers.enumerated().map { index, server in
                    TestServer(server: server.0, port: portsByIndex[index] ?? 0, adminToken: adminToken)
                },
                stores: opened, schema: schema)
            do {
                let result = try await body(cluster)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                await closeAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                await closeAll()
                throw error
            }
        }
    }
}
