/// Why a write was refused: the flag (or segment, environment), the field and the problem.
public struct ValidationError: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The environment concerned, when the problem is specific to one.
    public var environment: String?
    /// The flag, segment or environment key.
    public var key: String?
    /// The field, as a path in the request (`variants.on`, `settings.targeting`).
    public var field: String
    /// What is wrong with the field, in a few words.
    public var problem: String

    /// A problem with `field` of `key` (in `environment`, when it is about one environment).
    public init(environment: String? = nil, key: String?, field: String, problem: String) {
        self.environment = environment
        self.key = key
        self.field = field
        self.problem = problem
    }

    /// The problem with its place: the key (or "request"), the environment and the field.
    public var description: String {
        var place = key.map { "\"\($0)\"" } ?? "request"
        if let environment { place += " in environment \"\(environment)\"" }
        return "\(place): \(field): \(problem)"
    }
}
