import FlagServerModel
import Foundation
import Logging
import PostgresNIO

extension PostgresFlagStore: RolloutStore {
    /// Adds `plan`; an existing id is refused (``StoreError/conflict(_:)``).
    public func insertRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) {
        let document = try plan.stored()
        let inserted = try await run { [logger] in
            try await client.withConnection { connection in
                var inserted = false
                for try await _ in try await connection.query(
                    """
                    INSERT INTO rollout_plans (id, environment, flag, status, created_at, version, document)
                    VALUES (\(plan.id), \(plan.environment), \(plan.flag), \(plan.status.rawValue),
                            \(plan.createdAt.timeIntervalSince1970), \(plan.version), \(document))
                    ON CONFLICT (id) DO NOTHING RETURNING id
                    """, logger: logger)
                {
                    inserted = true
                }
                return inserted
            }
        }
        guard inserted else { throw .conflict("rollout plan \"\(plan.id)\" exists already") }
    }

    /// The plan `id`; `nil` when there is none.
    public func rolloutPlan(id: String) async throws(StoreError) -> RolloutPlan? {
        let document: String? = try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query("SELECT document FROM rollout_plans WHERE id = \(id)", logger: logger)
                for try await document in rows.decode(String.self) { return document }
                return nil
            }
        }
        return try document.map { stored throws(StoreError) in try RolloutPlan(stored: stored) }
    }

    /// The newest `limit` plans of `environment` (of `flag` only, when given), newest first.
    public func rolloutPlans(environment: String, flag: String?, limit: Int) async throws(StoreError) -> [RolloutPlan] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                let rows =
                    if let flag {
                        try await connection.query(
                            """
                            SELECT document FROM rollout_plans WHERE environment = \(environment) AND flag = \(flag)
                            ORDER BY created_at DESC, id DESC LIMIT \(max(0, limit))
                            """, logger: logger)
                    } else {
                        try await connection.query(
                            """
                            SELECT document FROM rollout_plans WHERE environment = \(environment)
                            ORDER BY created_at DESC, id DESC LIMIT \(max(0, limit))
                            """, logger: logger)
                    }
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        return try SQLiteFlagStore.decodePlans(documents)
    }

    /// Every running plan, by id.
    public func runningRolloutPlans() async throws(StoreError) -> [RolloutPlan] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                let rows = try await connection.query(
                    "SELECT document FROM rollout_plans WHERE status = 'running' ORDER BY id", logger: logger)
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        return try SQLiteFlagStore.decodePlans(documents)
    }

    /// Replaces the plan in one statement conditioned on the stored version being one less than `plan`'s,
    /// so that of two replicas updating one plan at once only one succeeds.
    public func updateRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) {
        let document = try plan.stored()
        let outcome: Int = try await run { [logger] in
            try await client.withConnection { connection in
                // Compare-and-set on the version: two replicas updating one plan at once leave
                // one update and one conflict.
                for try await _ in try await connection.query(
                    """
                    UPDATE rollout_plans SET status = \(plan.status.rawValue), version = \(plan.version), document = \(document)
                    WHERE id = \(plan.id) AND version = \(plan.version - 1) RETURNING id
                    """, logger: logger)
                {
                    return 0
                }
                for try await _ in try await connection.query("SELECT id FROM rollout_plans WHERE id = \(plan.id)", logger: logger) {
                    return 1
                }
                return 2
            }
        }
        switch outcome {
        case 0: return
        case 1: throw .conflict("rollout plan \"\(plan.id)\" changed meanwhile; read it again")
        default: throw .notFound("rollout plan \"\(plan.id)\"")
        }
    }

    /// Deletes the plan; `false` when there was none.
    public func deleteRolloutPlan(id: String) async throws(StoreError) -> Bool {
        try await run { [logger] in
            try await client.withConnection { connection in
                for try await _ in try await connection.query("DELETE FROM rollout_plans WHERE id = \(id) RETURNING id", logger: logger) {
                    return true
                }
                return false
            }
        }
    }

    /// Every template, by name.
    public func rolloutTemplates() async throws(StoreError) -> [RolloutTemplate] {
        let documents: [String] = try await run { [logger] in
            try await client.withConnection { connection in
                var documents: [String] = []
                let rows = try await connection.query("SELECT document FROM rollout_templates ORDER BY name", logger: logger)
                for try await document in rows.decode(String.self) { documents.append(document) }
                return documents
            }
        }
        var templates: [RolloutTemplate] = []
        for document in documents { templates.append(try RolloutTemplate(stored: document)) }
        return templates
    }

    /// The template `name`; `nil` when there is none.
    public func rolloutTemplate(name: String) async throws(StoreError) -> RolloutTemplate? {
        let document: String? = try await run { [logger] in
            try await client.withConnection { connection in
                let rows = try await connection.query("SELECT document FROM rollout_templates WHERE name = \(name)", logger: logger)
                for try await document in rows.decode(String.self) { return document }
                return nil
            }
        }
        return try document.map { stored throws(StoreError) in try RolloutTemplate(stored: stored) }
    }

    /// Inserts `template` at version 1, else replaces it by compare-and-set on the version.
    public func putRolloutTemplate(_ template: RolloutTemplate) async throws(StoreError) {
        let document = try template.stored()
        let outcome: Int = try await run { [logger] in
            try await client.withConnection { connection in
                if template.version == 1 {
                    for try await _ in try await connection.query(
                        """
                        INSERT INTO rollout_templates (name, version, document) VALUES (\(template.name), 1, \(document))
                        ON CONFLICT (name) DO NOTHING RETURNING name
                        """, logger: logger)
                    {
                        return 0
                    }
                    return 1
                }
                for try await _ in try await connection.query(
                    """
                    UPDATE rollout_templates SET version = \(template.version), document = \(document)
                    WHERE name = \(template.name) AND version = \(template.version - 1) RETURNING name
                    """, logger: logger)
                {
                    return 0
                }
                for try await _ in try await connection.query(
                    "SELECT name FROM rollout_templates WHERE name = \(template.name)", logger: logger)
                {
                    return 1
                }
                return 2
            }
        }
        switch outcome {
        case 0: return
        case 1:
            throw .conflict(
                template.version == 1
                    ? "rollout template \"\(template.name)\" exists already"
                    : "rollout template \"\(template.name)\" changed meanwhile; read it again")
        default: throw .notFound("rollout template \"\(template.name)\"")
        }
    }

    /// Deletes the template; `false` when there was none.
    public func deleteRolloutTemplate(name: String) async throws(StoreError) -> Bool {
        try await run { [logger] in
            try await client.withConnection { connection in
                for try await _ in try await connection.query(
                    "DELETE FROM rollout_templates WHERE name = \(name) RETURNING name", logger: logger)
                {
                    return true
                }
                return false
            }
        }
    }
}
