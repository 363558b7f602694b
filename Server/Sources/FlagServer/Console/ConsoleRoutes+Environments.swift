import FlagEvaluation
import FlagServerModel
import Foundation
import HTTPTypes
import Hummingbird

/// Environments side by side, and copying a flag's configuration from one to another.
extension ConsoleRoutes {
    func registerEnvironments(on router: Router<BasicRequestContext>) {
        router.get("/console/environments") { request, _ in
            try await page(request) { visitor in await environmentsPage(request, visitor) }
        }
        router.post("/console/environments/copy") { request, _ in
            try await change(request) { visitor, form in
                let key = form["key"] ?? ""
                let source = form["from"] ?? ""
                let target = form["to"] ?? ""
                let given = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let error = await write(visitor, reason: given.isEmpty ? "copy \"\(key)\" from \(source)" : given) { state throws(AdminError) in
                    try EnvironmentCopy.changes(flag: key, from: source, to: target, in: state)
                }
                if let error { return await environmentsPage(request, visitor, error: error.description, status: APIError(error).status) }
                return Self.redirect("/console/environments?left=\(Self.escaped(source))&right=\(Self.escaped(target))&done=copied")
            }
        }
        // The listing order of environments (`PUT /admin/v1/environments/order`): every key once,
        // separated by commas or spaces.
        router.post("/console/environments/order") { request, _ in
            try await change(request, needs: .admin) { visitor, form in
                let keys = (form["order"] ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
                let given = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                let error = await write(visitor, reason: given.isEmpty ? "order environments: \(keys.joined(separator: ", "))" : given) {
                    state throws(AdminError) in [try EnvironmentOrder.change(keys, in: state)]
                }
                if let error { return await environmentsPage(request, visitor, error: error.description, status: APIError(error).status) }
                return Self.redirect("/console/environments?done=ordered")
            }
        }
    }

    func environmentsPage(
        _ request: Request, _ visitor: Visitor, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async -> Response {
        let state = await admin.state
        let query = Self.query(of: request)
        let environments = state.orderedEnvironmentKeys
        func pick(_ name: String, _ fallback: String?) -> String {
            query[name].flatMap { environments.contains($0) ? $0 : nil } ?? fallback ?? environments.first ?? ""
        }
        let left = pick("left", environments.contains("staging") ? "staging" : nil)
        let right = pick("right", environments.contains("production") ? "production" : environments.last)
        func describe(_ flag: FlagRecord, _ settings: FlagSettings?) -> [String: Any] {
            Self.omittingEmpty([
                "state": settings?.enabled == true ? "on" : "off",
                "serving": settings.map { Self.serving(flag, $0) } ?? "",
                "rule": settings?.targeting.map { $0.serialized(prettyPrinted: true) } ?? "",
            ], ["rule"])
        }
        var context = layout(visitor, title: "Environments", section: "environments")
        context["left"] = left
        context["right"] = right
        context["leftOptions"] = environments.map { ["value": $0, "selected": $0 == left] as [String: Any] }
        context["rightOptions"] = environments.map { ["value": $0, "selected": $0 == right] as [String: Any] }
        // Archived flags are read-only and not served: nothing to compare or copy.
        context["rows"] = state.flags.values.filter { !$0.archived }.sorted { $0.key < $1.key }.map { flag -> [String: Any] in
            let a = state.environments[left]?.settings[flag.key]
            let b = state.environments[right]?.settings[flag.key]
            return [
                "key": flag.key, "path": Self.escaped(flag.key), "differs": a != b, "same": a == b,
                "leftSide": describe(flag, a), "rightSide": describe(flag, b), "id": "copy-\(flag.key)",
            ]
        }
        context["sameEnvironment"] = left == right
        context["error"] = error
        context["order"] = environments.joined(separator: ", ")
        context["environmentPages"] = environments.map { ["key": $0, "path": Self.escaped($0)] }
        context["notice"] = ["copied": "Copied: written as a new revision.", "ordered": "Saved the order of the environments."][query["done"] ?? ""]
        return renderer.page("environments", context, status: status)
    }
}
