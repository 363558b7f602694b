import FlagServerModel
import Foundation
import SQLiteNIO

extension SQLiteFlagStore: RolloutStore {
    /// Adds `plan`, in a transaction that refuses an existing id.
    public func insertRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) {
        let document = try plan.stored()
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM rollout_plans WHERE id = ?", [.text(plan.id)])
                guard existing.isEmpty else { throw StoreError.conflict("rollout plan \"\(plan.id)\" exists already") }
                _ = try await connection.query(
                    "INSERT INTO rollout_plans (id, environment, flag, status, created_at, version, document) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [
                        .text(plan.id), .text(plan.environment), .text(plan.flag), .text(plan.status.rawValue),
                        .float(plan.createdAt.timeIntervalSince1970), .integer(plan.version), .text(document),
                    ])
            }
        }
    }

    /// The plan `id`; `nil` when there is none.
    public func rolloutPlan(id: String) async throws(StoreError) -> RolloutPlan? {
        let document = try await run {
            try await connection.query("SELECT document FROM rollout_plans WHERE id = ?", [.text(id)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try RolloutPlan(stored: stored) }
    }

    /// The newest `limit` plans of `environment` (of `flag` only, when given), newest first.
    public func rolloutPlans(environment: String, flag: String?, limit: Int) async throws(StoreError) -> [RolloutPlan] {
        let documents = try await run {
            let rows =
                if let flag {
                    try await connection.query(
                        "SELECT document FROM rollout_plans WHERE environment = ? AND flag = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                        [.text(environment), .text(flag), .integer(max(0, limit))])
                } else {
                    try await connection.query(
                        "SELECT document FROM rollout_plans WHERE environment = ? ORDER BY created_at DESC, id DESC LIMIT ?",
                        [.text(environment), .integer(max(0, limit))])
                }
            return rows.map { $0.column("document")?.string ?? "" }
        }
        return try Self.decodePlans(documents)
    }

    /// Every running plan, by id.
    public func runningRolloutPlans() async throws(StoreError) -> [RolloutPlan] {
        let documents = try await run {
            try await connection.query("SELECT document FROM rollout_plans WHERE status = 'running' ORDER BY id")
                .map { $0.column("document")?.string ?? "" }
        }
        return try Self.decodePlans(documents)
    }

    static func decodePlans(_ documents: [String]) throws(StoreError) -> [RolloutPlan] {
        var plans: [RolloutPlan] = []
        for document in documents { plans.append(try RolloutPlan(stored: document)) }
        return plans
    }

    /// Replaces the plan when the stored version is one less than `plan`'s (compare-and-set).
    public func updateRolloutPlan(_ plan: RolloutPlan) async throws(StoreError) {
        let document = try plan.stored()
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM rollout_plans WHERE id = ?", [.text(plan.id)])
                guard let stored = rows.first?.column("version")?.integer else { throw StoreError.notFound("rollout plan \"\(plan.id)\"") }
                guard stored == plan.version - 1 else {
                    throw StoreError.conflict("rollout plan \"\(plan.id)\" changed meanwhile; read it again")
                }
                _ = try await connection.query(
                    "UPDATE rollout_plans SET status = ?, version = ?, document = ? WHERE id = ?",
                    [.text(plan.status.rawValue), .integer(plan.version), .text(document), .text(plan.id)])
            }
        }
    }

    /// Deletes the plan; `false` when there was none.
    public func deleteRolloutPlan(id: String) async throws(StoreError) -> Bool {
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT id FROM rollout_plans WHERE id = ?", [.text(id)])
                guard !existing.isEmpty else { return false }
                _ = try await connection.query("DELETE FROM rollout_plans WHERE id = ?", [.text(id)])
                return true
            }
        }
    }

    /// Every template, by name.
    public func rolloutTemplates() async throws(StoreError) -> [RolloutTemplate] {
        let documents = try await run {
            try await connection.query("SELECT document FROM rollout_templates ORDER BY name").map { $0.column("document")?.string ?? "" }
        }
        var templates: [RolloutTemplate] = []
        for document in documents { templates.append(try RolloutTemplate(stored: document)) }
        return templates
    }

    /// The template `name`; `nil` when there is none.
    public func rolloutTemplate(name: String) async throws(StoreError) -> RolloutTemplate? {
        let document = try await run {
            try await connection.query("SELECT document FROM rollout_templates WHERE name = ?", [.text(name)]).first?.column("document")?.string
        }
        return try document.map { stored throws(StoreError) in try RolloutTemplate(stored: stored) }
    }

    /// Inserts `template` at version 1, else replaces it by compare-and-set on the version.
    public func putRolloutTemplate(_ template: RolloutTemplate) async throws(StoreError) {
        let document = try template.stored()
        try await run {
            try await transaction {
                let rows = try await connection.query("SELECT version FROM rollout_templates WHERE name = ?", [.text(template.name)])
                let stored = rows.first?.column("version")?.integer
                if template.version == 1 {
                    guard stored == nil else { throw StoreError.conflict("rollout template \"\(template.name)\" exists already") }
                    _ = try await connection.query(
                        "INSERT INTO rollout_templates (name, version, document) VALUES (?, ?, ?)",
                        [.text(template.name), .integer(1), .text(document)])
                    return
                }
                guard let stored else { throw StoreError.notFound("rollout template \"\(template.name)\"") }
                guard stored == template.version - 1 else {
                    throw StoreError.conflict("rollout template \"\(template.name)\" changed meanwhile; read it again")
                }
                _ = try await connection.query(
                    "UPDATE rollout_templates SET version = ?, document = ? WHERE name = ?",
                    [.integer(template.version), .text(document), .text(template.name)])
            }
        }
    }

    /// Deletes the template; `false` when there was none.
    public func deleteRolloutTemplate(name: String) async throws(StoreError) -> Bool {
        try await run {
            try await transaction {
                let existing = try await connection.query("SELECT name FROM rollout_templates WHERE name = ?", [.text(name)])
                guard !existing.isEmpty else { return false }
                _ = try await connection.query("DELETE FROM rollout_templates WHERE name = ?", [.text(name)])
                return true
            }
        }
    }
}
