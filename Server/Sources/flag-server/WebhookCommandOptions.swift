import ArgumentParser
import FlagServer
import Foundation

/// `serve`'s webhook options (`Server/Docs/Webhooks.md`).
struct WebhookCommandOptions: ParsableArguments {
    @Flag(
        inversion: .prefixedNo,
        help: "Send signed webhooks to the endpoints of /admin/v1/webhooks (FLAG_SERVER_WEBHOOKS, default true).")
    var webhooks: Bool?
    @Flag(
        help: "Let webhook endpoints be loopback, link-local, private or other non-global addresses, for tests and local development (FLAG_SERVER_ALLOW_LOCAL_WEBHOOKS=1).")
    var allowLocalWebhooks = false

    /// The server's webhook options, `nil` when dispatch is off.
    func options(environment: [String: String] = ProcessInfo.processInfo.environment) -> WebhookOptions? {
        let enabled = webhooks ?? (environment["FLAG_SERVER_WEBHOOKS"].map { !["0", "false", "no"].contains($0.lowercased()) } ?? true)
        guard enabled else { return nil }
        var options = WebhookOptions()
        options.allowsLocalTargets = allowLocalWebhooks || environment["FLAG_SERVER_ALLOW_LOCAL_WEBHOOKS"] == "1"
        return options
    }
}
