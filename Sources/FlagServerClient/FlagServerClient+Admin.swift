import FeatureFlags
import Foundation

extension FlagServerClient {
    /// Sends one admin request and answers the server's JSON body as it came (empty for a 204),
    /// for the commands that print it (`flags schedule`, `flags rollout`).
    ///
    /// `path` starts with `/admin/v1`; build its variable parts with ``adminPath(_:)``. A failure
    /// is a ``ToolingError`` (server failure) quoting the server's JSON error, as for
    /// ``definitions()``.
    ///
    /// ```swift
    /// let data = try client.send("GET", FlagServerClient.adminPath(["environments", "production", "rollouts"]),
    ///                            purpose: .read(environment: "production"))
    /// ```
    public func send(
        _ method: String, _ path: String, query: [(name: String, value: String)] = [], body: FlagValue? = nil,
        purpose: Purpose
    ) throws(ToolingError) -> Data {
        var target = path
        if !query.isEmpty {
            target += "?" + query.map { "\(Self.pathComponent($0.name))=\(Self.pathComponent($0.value))" }.joined(separator: "&")
        }
        return try call(method, target, body: body.map { Data($0.jsonString.utf8) }, purpose: purpose)
    }

    /// Decodes an answer of ``send(_:_:query:body:purpose:)`` that `operation` gave.
    public func decodeAnswer<T: Decodable>(_ type: T.Type, _ data: Data, from operation: String) throws(ToolingError) -> T {
        try decode(type, data, from: operation)
    }

    /// `/admin/v1/` followed by `components`, each percent-encoded.
    public static func adminPath(_ components: [String]) -> String {
        "/admin/v1/" + components.map(pathComponent).joined(separator: "/")
    }
}
