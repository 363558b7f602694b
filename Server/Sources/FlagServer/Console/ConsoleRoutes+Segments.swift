import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Segments (flagd `$evaluators`: shared conditions of one environment that rules use with
/// `{"$ref": "name"}`): the list with who uses each, creating and editing one with the rule
/// builder, and deleting one that nothing uses. Every write goes through ``FlagAdmin``; the
/// server's validator refuses a segment that a flag or another segment still refers to, and the
/// page says which.
extension ConsoleRoutes {
    func registerSegments(on router: Router<BasicRequestContext>) {
        router.get("/console/segments") { request, _ in
            try await page(request) { visitor in
                await segmentsPage(visitor, environment: Self.query(of: request)["environment"], notice: Self.query(of: request)["done"].flatMap { Self.segmentNotices[$0] })
            }
        }
        router.post("/console/segments/:environment") { request, context in
            let environment = try context.parameters.require("environment")
            return try await change(request) { visitor, form in
                try await saveSegment(visitor, form, environment: environment, key: nil)
            }
        }
        router.get("/console/segments/:environment/:key") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            return try await page(request) { visitor in
                try await segmentPage(visitor, environment: environment, key: key, notice: Self.query(of: request)["done"].flatMap { Self.segmentNotices[$0] })
            }
        }
        router.post("/console/segments/:environment/:key") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in
                try await saveSegment(visitor, form, environment: environment, key: key)
            }
        }
        router.post("/console/segments/:environment/:key/delete") { request, context in
            let environment = try context.parameters.require("environment")
            let key = try context.parameters.require("key")
            return try await change(request) { visitor, form in
                try await deleteSegment(visitor, form, environment: environment, key: key)
            }
        }
    }

    static let segmentNotices = ["saved": "Saved.", "created": "The segment was created.", "deleted": "The segment was deleted."]

    /// What a segment form shows after a post that was not saved.
    struct SegmentDraft {
        var key = ""
        var rule = ""
        var reason = ""
        var problems: [String] = []
    }

    /// The context of the segment builder: the other segments a condition may name.
    static func builderSegments(_ environment: EnvironmentState?, except key: String?) -> String {
        JSONValue.array((environment?.segments.keys.sorted() ?? []).filter { $0 != key }.map { .string($0) }).serialized()
    }

    func segmentsPage(
        _ visitor: Visitor, environment requested: String?, draft: SegmentDraft = SegmentDraft(), notice: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async -> Response {
        let state = await admin.state
        let environments = state.orderedEnvironmentKeys
        let selected = requested.flatMap { environments.contains($0) ? $0 : nil }
            ?? (environments.contains("production") ? "production" : environments.first ?? "")
        let environment = state.environments[selected]
        var context = layout(visitor, title: "Segments", section: "segments")
        context["environment"] = selected
        context["environmentPath"] = Self.escaped(selected)
        context["environments"] = environments.map { ["value": $0, "selected": $0 == selected] as [String: Any] }
        let segments = (environment?.segments ?? [:]).sorted { $0.key < $1.key }
        context["segments"] = segments.map { key, rule -> [String: Any] in
            let flags = environment.map { SegmentUsage.flags(using: key, in: $0) } ?? []
            let others = environment.map { SegmentUsage.segments(using: key, in: $0) } ?? []
            return [
                "key": key, "path": Self.escaped(key), "rule": rule.serialized(prettyPrinted: true),
                // A flag links to its page; a segment using it is named (its own key is `path` here).
                "usedBy": flags.map { ["key": $0, "flagPath": Self.escaped($0)] } + others.map { ["key": "segment \($0)"] },
                "unused": flags.isEmpty && others.isEmpty,
            ]
        }
        context["empty"] = segments.isEmpty
        context["draft"] = ["key": draft.key, "rule": draft.rule, "reason": draft.reason]
        context["problems"] = draft.problems
        context["hasProblems"] = !draft.problems.isEmpty
        context["builderSegments"] = Self.builderSegments(environment, except: nil)
        context["notice"] = notice
        return renderer.page("segments", context, status: status)
    }

    func segmentPage(
        _ visitor: Visitor, environment: String, key: String, draft: SegmentDraft? = nil, notice: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let state = await admin.state
        guard let environmentState = state.environments[environment] else { throw Self.notFound("environment \"\(environment)\"") }
        guard let rule = environmentState.segments[key] else { throw Self.notFound("segment \"\(key)\" in environment \"\(environment)\"") }
        let flags = SegmentUsage.flags(using: key, in: environmentState)
        let others = SegmentUsage.segments(using: key, in: environmentState)
        var context = layout(visitor, title: "Segment \(key)", section: "segments")
        context["environment"] = environment
        context["environmentPath"] = Self.escaped(environment)
        context["key"] = key
        context["path"] = Self.escaped(key)
        context["rule"] = draft.flatMap { $0.rule.isEmpty ? nil : $0.rule } ?? rule.serialized(prettyPrinted: true)
        context["reason"] = draft?.reason ?? ""
        context["flags"] = flags.map { ["key": $0, "path": Self.escaped($0), "environmentPath": Self.escaped(environment)] }
        context["segmentsUsing"] = others.map { ["key": $0, "path": Self.escaped($0), "environmentPath": Self.escaped(environment)] }
        context["inUse"] = !flags.isEmpty || !others.isEmpty
        context["problems"] = draft?.problems ?? []
        context["hasProblems"] = !(draft?.problems ?? []).isEmpty
        context["builderSegments"] = Self.builderSegments(environmentState, except: key)
        context["notice"] = notice
        return renderer.page("segment", context, status: status)
    }

    /// Creates (`key` nil: the key comes from the form) or replaces a segment.
    func saveSegment(_ visitor: Visitor, _ form: ConsoleForm, environment: String, key given: String?) async throws -> Response {
        let key = given ?? (form["key"] ?? "").trimmingCharacters(in: .whitespaces)
        let text = (form["rule"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var draft = SegmentDraft(key: key, rule: form["rule"] ?? "", reason: form["reason"] ?? "")
        func refuse(_ problems: [String], status: HTTPResponse.Status = .unprocessableContent) async throws -> Response {
            draft.problems = problems
            if let given { return try await segmentPage(visitor, environment: environment, key: given, draft: draft, status: status) }
            return await segmentsPage(visitor, environment: environment, draft: draft, status: status)
        }
        let state = await admin.state
        guard state.environments[environment] != nil else { throw Self.notFound("environment \"\(environment)\"") }
        if given == nil, state.environments[environment]?.segments[key] != nil {
            return try await refuse(["key: a segment \"\(key)\" exists already in \(environment)"])
        }
        guard !text.isEmpty else { return try await refuse(["rule: a segment needs a condition"]) }
        let rule: JSONValue
        do {
            rule = try JSONValue(parsing: text)
        } catch {
            return try await refuse(["rule: not JSON: \(error)"])
        }
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let error = await write(visitor, reason: reason.isEmpty ? "\(given == nil ? "create" : "change") segment \"\(key)\"" : reason) { _ in
            [.putSegment(environment: environment, key: key, rule: rule)]
        }
        if let error { return try await refuse(Self.problemTexts(error), status: APIError(error).status) }
        return Self.redirect(
            "/console/segments/\(Self.escaped(environment))/\(Self.escaped(key))?done=\(given == nil ? "created" : "saved")")
    }

    /// Deletes a segment; the server refuses while a flag or a segment refers to it (a `$ref` to
    /// a missing segment does not compile), and the page names them.
    func deleteSegment(_ visitor: Visitor, _ form: ConsoleForm, environment: String, key: String) async throws -> Response {
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let error = await write(visitor, reason: reason.isEmpty ? "delete segment \"\(key)\"" : reason) { _ in
            [.deleteSegment(environment: environment, key: key)]
        }
        guard let error else { return Self.redirect("/console/segments?environment=\(Self.escaped(environment))&done=deleted") }
        if case .notFound = error { throw APIError(error) }
        let state = await admin.state
        var problems: [String] = []
        if let environmentState = state.environments[environment] {
            let users = SegmentUsage.flags(using: key, in: environmentState).map { "flag \($0)" }
                + SegmentUsage.segments(using: key, in: environmentState).map { "segment \($0)" }
            if !users.isEmpty {
                problems.append("Not deleted: \"\(key)\" is used by \(users.joined(separator: ", ")). Change those rules first.")
            }
        }
        problems += Self.problemTexts(error)
        return try await segmentPage(
            visitor, environment: environment, key: key, draft: SegmentDraft(key: key, problems: problems), status: APIError(error).status)
    }
}
