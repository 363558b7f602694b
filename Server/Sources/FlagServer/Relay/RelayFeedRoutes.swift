import Foundation
import HTTPTypes
import Hummingbird

/// `GET /relay/v1/environment` (server role): the ``RelayFeed`` of the token's environment, for a
/// relay following this server or relay; answered `304 Not Modified` for its current ETag.
struct RelayFeedRoutes: Sendable {
    /// The feed of an environment: its ETag, and its body (encoded only when it is sent).
    typealias Source = @Sendable (_ environment: String) async -> (etag: String, body: @Sendable () -> Data)?

    let authenticator: RequestAuthenticator
    let source: Source

    func register(on router: Router<BasicRequestContext>) {
        router.get("/relay/v1/environment") { request, _ in
            let token = try authenticator.authorize(request, role: .server, environment: nil)
            let environment = try authenticator.environment(of: token)
            guard let feed = await source(environment.key) else {
                throw APIError(.notFound, code: "not_found", message: "environment \"\(environment.key)\" does not exist")
            }
            if EntityTag.anyMatches(request.headers[.ifNoneMatch], feed.etag) {
                return Response(status: .notModified, headers: [.eTag: feed.etag])
            }
            return JSONBody.response(data: feed.body(), headers: [.eTag: feed.etag, .cacheControl: "no-store"])
        }
    }
}
