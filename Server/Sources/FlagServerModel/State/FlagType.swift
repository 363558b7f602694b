public import FlagEvaluation

/// The type of a flag's values: every variant of the flag has it.
public enum FlagType: String, Sendable, Hashable, Codable, CaseIterable {
    /// The flagd value types: `true`/`false`, text, whole numbers, floating-point numbers, JSON objects.
    case boolean, string, integer, float, object

    /// Whether `value` is a value of this type (an integer is also a float).
    public func accepts(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.boolean, .bool), (.string, .string), (.integer, .int), (.float, .int), (.float, .double),
            (.object, .object), (.object, .array):
            true
        default:
            false
        }
    }

    /// The name the project's manifest format uses (`double` for floats).
    package var manifestName: String { self == .float ? "double" : rawValue }

    /// Reads a manifest type name (`double` and `float` both mean float).
    package init?(manifestName: String) {
        if manifestName == "double" { self = .float } else { self.init(rawValue: manifestName) }
    }
}
