import FlagServerModel
import Foundation

extension Rollouts {
    /// Every rollout template, by name.
    /// - Throws: ``AdminError`` when the store fails.
    public func templates() async throws(AdminError) -> [RolloutTemplate] {
        do { return try await store.rolloutTemplates() } catch { throw AdminError(store: error) }
    }

    /// The template `name`, if it exists.
    public func template(name: String) async throws(AdminError) -> RolloutTemplate? {
        do { return try await store.rolloutTemplate(name: name) } catch { throw AdminError(store: error) }
    }

    /// Creates or replaces the template of `template`'s name (its version one more than the
    /// stored one's, its creation time kept).
    public func putTemplate(_ template: RolloutTemplate) async throws(AdminError) -> RolloutTemplate {
        let current = try await self.template(name: template.name)
        var template = template
        template.createdAt = current?.createdAt ?? template.createdAt
        template.updatedAt = now()
        template.version = (current?.version ?? 0) + 1
        let problems = template.problems
        guard problems.isEmpty else { throw .badRequest(problems.joined(separator: "; ")) }
        try await checkMetricKeys(template.guardrails)
        do { try await store.putRolloutTemplate(template) } catch { throw AdminError(store: error) }
        return template
    }

    /// Deletes the template `name` (plans made from it keep their copy).
    public func deleteTemplate(name: String) async throws(AdminError) {
        let deleted: Bool
        do { deleted = try await store.deleteRolloutTemplate(name: name) } catch { throw AdminError(store: error) }
        guard deleted else { throw .notFound("rollout template \"\(name)\" does not exist") }
    }
}
