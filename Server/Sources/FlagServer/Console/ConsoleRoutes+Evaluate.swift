import FlagEvaluation
import Foundation
import HTTPTypes
import Hummingbird

/// The Evaluate playground: a context in, every flag's value, variant, reason and the steps of
/// its rule out. Read-only, so a plain GET form (works without JavaScript).
extension ConsoleRoutes {
    func registerEvaluate(on router: Router<BasicRequestContext>) {
        router.get("/console/evaluate") { request, _ in
            try await page(request) { visitor in await evaluatePage(request, visitor) }
        }
    }

    func evaluatePage(_ request: Request, _ visitor: Visitor) async -> Response {
        let state = await admin.state
        let query = Self.query(of: request)
        let environments = state.orderedEnvironmentKeys
        let environment = query["environment"].flatMap { environments.contains($0) ? $0 : nil }
            ?? (environments.contains("production") ? "production" : environments.first ?? "")
        let targetingKey = query["targetingKey"] ?? ""
        let attributesText = query["attributes"] ?? ""
        var context = layout(visitor, title: "Evaluate", section: "evaluate")
        context["environments"] = environments.map { ["value": $0, "selected": $0 == environment] as [String: Any] }
        context["targetingKey"] = targetingKey
        context["attributes"] = attributesText
        guard query["environment"] != nil else { return renderer.page("evaluate", context) }

        var members: [String: JSONValue] = [:]
        let trimmed = attributesText.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.isEmpty {
            guard trimmed.utf8.count <= limits.maximumEvaluationBytes,
                case .object(let attributes)? = try? JSONValue(parsing: trimmed)
            else {
                context["error"] = "attributes: must be a JSON object of at most \(limits.maximumEvaluationBytes) bytes, like {\"plan\": \"pro\"}"
                return renderer.page("evaluate", context, status: .badRequest)
            }
            members = attributes
        }
        if !targetingKey.isEmpty { members["targetingKey"] = .string(targetingKey) }
        let flags = FlagExplainer.explain(
            environment: environment, state: state, context: .object(members), bucketing: admin.publisher.bucketing, now: now()) ?? []
        context["evaluated"] = true
        context["results"] = flags.map { flag -> [String: Any] in
            Self.omittingEmpty([
                "key": flag.key, "path": Self.escaped(flag.key), "value": flag.value?.serialized() ?? "(the app's code default)",
                "variant": flag.variant ?? "—", "reason": flag.reason,
                "error": [flag.errorCode, flag.errorMessage].compactMap { $0 }.joined(separator: ": "),
                "steps": flag.steps.map { ["rule": $0.rule, "result": $0.result, "decided": $0.decided] as [String: Any] },
            ], ["error"])
        }
        context["none"] = flags.isEmpty
        return renderer.page("evaluate", context)
    }
}
