/// The type a caller expects a flag's value to have.
public enum EvaluationType: String, Sendable, Hashable, CaseIterable {
    /// `true` or `false`.
    case boolean
    /// A string.
    case string
    /// A whole number; number variants with a fraction are a type mismatch.
    case integer
    /// Any number, returned as ``JSONValue/double(_:)``.
    case float
    /// A JSON object.
    case object

    /// Whether flags whose variants are of `variantType` can serve this type.
    func accepts(_ variantType: FlagVariantType) -> Bool {
        switch (self, variantType) {
        case (.boolean, .boolean), (.string, .string), (.integer, .number), (.float, .number), (.object, .object): true
        default: false
        }
    }
}
