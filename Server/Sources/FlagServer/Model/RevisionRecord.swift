public import Foundation

/// One committed write to an environment.
public struct RevisionRecord: Sendable, Hashable, Codable {
    public var environment: String
    public var revision: Int
    public var time: Date
    public var actor: String
    public var reason: String?

    public init(environment: String, revision: Int, time: Date, actor: String, reason: String?) {
        self.environment = environment
        self.revision = revision
        self.time = time
        self.actor = actor
        self.reason = reason
    }
}
