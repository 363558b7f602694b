import Foundation
import HTTPTypes
import Hummingbird

/// `GET /rpc/app_config` (client role) and `GET /flagd/v1/flags.json` (server role): documents
/// serialized once per revision, answered with their ETag or `304 Not Modified`.
struct DocumentRoutes: Sendable {
    let authenticator: RequestAuthenticator

    func register(on router: Router<BasicRequestContext>) {
        router.get("/rpc/app_config") { request, _ in
            let token = try authenticator.authorize(request, role: .client, environment: nil)
            let environment = try authenticator.environment(of: token)
            return Self.document(environment.appConfig, for: request)
        }
        router.get("/flagd/v1/flags.json") { request, _ in
            let token = try authenticator.authorize(request, role: .server, environment: nil)
            let environment = try authenticator.environment(of: token)
            return Self.document(environment.flagd, for: request)
        }
    }

    static func document(_ document: (body: Data, etag: String), for request: Request) -> Response {
        if EntityTag.anyMatches(request.headers[.ifNoneMatch], document.etag) {
            return Response(status: .notModified, headers: [.eTag: document.etag])
        }
        return JSONBody.response(data: document.body, headers: [.eTag: document.etag])
    }
}
