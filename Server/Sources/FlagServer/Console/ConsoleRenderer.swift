import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore

/// The console's templates and assets, loaded once from the package resources.
struct ConsoleRenderer: Sendable {
    let library: MustacheLibrary
    /// Assets by file name (`console.css`, `console.js`): content type and bytes.
    let assets: [String: (type: String, body: ByteBuffer)]

    /// Loads `Console/templates/*.mustache` and `Console/assets/*` from the bundle.
    static func load() async throws -> ConsoleRenderer {
        guard let root = Bundle.module.url(forResource: "Console", withExtension: nil) else {
            throw APIError(.internalServerError, code: "internal", message: "the console resources are missing from the bundle")
        }
        let library = try await MustacheLibrary(directory: root.appendingPathComponent("templates").path)
        var assets: [String: (type: String, body: ByteBuffer)] = [:]
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
        let folder = root.appendingPathComponent("assets")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let type = types[(name as NSString).pathExtension],
                let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path)
            else { continue }
            assets[name] = (type, ByteBuffer(bytes: data))
        }
        return ConsoleRenderer(library: library, assets: assets)
    }

    /// Headers every console page carries: no caching, no framing, scripts and styles only from
    /// the server itself (so even a markup injection could not run a script).
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .xContentTypeOptions: "nosniff",
        .cacheControl: "no-store",
        HTTPField.Name("Referrer-Policy")!: "same-origin",
        HTTPField.Name("X-Frame-Options")!: "DENY",
    ]

    /// The page `template` rendered with `context`.
    func page(_ template: String, _ context: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = html(template, context)
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// The HTML of `template` rendered with `context`.
    func html(_ template: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: template) ?? "template \(template) is missing"
    }
}
