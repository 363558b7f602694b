import Foundation

/// One flag-definition document and the name to report problems under.
public struct FlagSource: Sendable, Hashable {
    /// Shown in errors; usually the file name or URL.
    public var name: String
    /// The JSON document (UTF-8).
    public var data: Data

    /// A source named `name` holding `data` (UTF-8 JSON).
    public init(name: String, data: Data) {
        self.name = name
        self.data = data
    }

    /// A source named `name` holding the JSON text `json`.
    public init(name: String, json: String) {
        self.init(name: name, data: Data(json.utf8))
    }
}
